// `gym dev test` (NeMo Gym's ng_dev_test): NeMo Gym's own pytest suite.
import { notApplicableCommand } from "./not-applicable.ts";

export const devTestCommand = notApplicableCommand({
  path: ["dev", "test"],
  nemoGym: "run NeMo Gym's unit tests",
  instead: "this project's tests run with npm test (or node scripts/run-tests.js PATTERN); an environment's with gym env test",
  legacyNames: { ng_dev_test: [] },
});
