// NVARC: ARC-AGI grid puzzles in two modes. Transductive: the model writes the test output as rows of
// space-separated digits (`\boxed{0 1\n1 0}`); inductive: it writes a Python `transform(grid)` that NeMo Gym runs
// on `test_input`. Either way the reward is 1 when the grid equals `expected_output` exactly. The row's
// `agent_mode` picks the mode, else the instance's `agent_mode`.
//
// Running model-written code needs the project's sandbox (bubblewrap), which does not exist yet: an inductive
// answer with a program is refused with a 501 (a typed failure for collection, never a made-up reward). One
// without a program scores 0, as in NeMo Gym, since nothing would have run.
import { z } from "zod";
import { HttpError, resourcesServer } from "../../src/server/index.ts";
import { ArcTaskFields, assistantText, extractTransformCode, gridsEqual, parseDigitRows, readIntGrid, stripThinking, type Grid } from "../../src/ports/arc-grid.ts";

export const INDUCTIVE_NEEDS_SANDBOX =
  "nvarc inductive verification runs the model's transform() code, which needs the project's sandbox (bubblewrap); no sandbox exists yet, so this row cannot be scored";

export default resourcesServer({
  name: "NVARCResourcesServer",
  config: z.looseObject({
    agent_mode: z.string().default("transductive"),
    // Read by the inductive mode once the sandbox exists: the alarm around transform().
    python_timeout_seconds: z.number().int().default(30),
  }),
  tools: {},
  verify: {
    // NeMo Gym's request model; the rest of a row (problem_id, variant, metadata, …) is ignored.
    input: z.object({ ...ArcTaskFields, agent_mode: z.string().nullish() }),
    run(_state, { response, expected_output, agent_mode }, { config }) {
      const expected = readIntGrid(expected_output);
      const mode = agent_mode || config.agent_mode;
      const text = stripThinking(assistantText(response.output));
      let predicted: Grid | null;
      if (mode === "inductive") {
        if (extractTransformCode(text) !== null) throw new HttpError(501, INDUCTIVE_NEEDS_SANDBOX);
        predicted = null; // no program: nothing would have run, and NeMo Gym scores 0
      } else {
        predicted = parseDigitRows(text);
      }
      const exactMatch = predicted !== null && gridsEqual(predicted, expected);
      return {
        reward: exactMatch ? 1 : 0,
        expected_output: expected,
        predicted_output: predicted,
        extraction_successful: predicted !== null,
        exact_match: exactMatch,
        agent_mode: mode,
      };
    },
  },
});
