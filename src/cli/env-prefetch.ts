// `gym env prefetch`: NeMo Gym pre-warms per-server venvs; servers here share the project's node_modules.
import { notApplicableCommand } from "./not-applicable.ts";

export const envPrefetchCommand = notApplicableCommand({
  path: ["env", "prefetch"],
  nemoGym: "pre-warm per-server venvs without starting servers",
  instead: "there are no per-server venvs to warm; every server runs on the project's node_modules (npm ci once), so gym env start starts them directly",
});
