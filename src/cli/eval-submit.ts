// `gym eval submit`: NeMo Gym's Slurm job submission is not ported.
import { notApplicableCommand } from "./not-applicable.ts";

export const evalSubmitCommand = notApplicableCommand({
  path: ["eval", "submit"],
  nemoGym: "submit a job",
  instead: "Slurm job submission is not ported; run gym eval run in your own job script (shard with --limit / --disable-aggregation and merge with gym eval aggregate)",
});
