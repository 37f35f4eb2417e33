// ARC-AGI grid puzzles, answered directly (transductive): the model writes the test output as a JSON grid,
// `\boxed{[[…],[…]]}`, and scores 1 when it equals `expected_output` exactly. The first readable grid wins.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { ArcTaskFields, assistantText, gridsEqual, parseJsonGrid, readIntGrid } from "../../src/ports/arc-grid.ts";

export default resourcesServer({
  name: "ARCAGIResourcesServer",
  tools: {},
  verify: {
    // NeMo Gym's request model; only expected_output is read, the rest is checked as it declares them.
    input: z.object(ArcTaskFields),
    run(_state, { response, expected_output }) {
      const expected = readIntGrid(expected_output);
      const predicted = parseJsonGrid(assistantText(response.output));
      return {
        reward: predicted !== null && gridsEqual(predicted, expected) ? 1 : 0,
        expected_output: expected,
        predicted_output: predicted,
        extraction_successful: predicted !== null,
      };
    },
  },
});
