// `gym env packages` (NeMo Gym's ng_pip_list): there are no per-server Python venvs here.
import { notApplicableCommand } from "./not-applicable.ts";

export const envPackagesCommand = notApplicableCommand({
  path: ["env", "packages"],
  nemoGym: "print pip packages for the selected resources server",
  instead: "this project has no per-server Python venvs; its npm dependencies are in package.json (npm ls)",
  legacyNames: { ng_pip_list: [] },
});
