// NVARC: ARC-AGI grid puzzles in two modes. Transductive: the model writes the test output as rows of
// space-separated digits (`\boxed{0 1\n1 0}`); inductive: it writes a Python `transform(grid)`, which runs on
// `test_input` in the project's sandbox (transform-run.ts). Either way the reward is 1 when the grid equals
// `expected_output` exactly, compared here, never by the program. The row's `agent_mode` picks the mode, else the
// instance's `agent_mode`.
import { z } from "zod";
import { resourcesServer, type ServerContext } from "../../src/server/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import { ArcTaskFields, assistantText, extractTransformCode, gridsEqual, parseDigitRows, readIntGrid, stripThinking, type Grid } from "../../src/ports/arc-grid.ts";
import { runTransform } from "./transform-run.ts";

const Config = z.looseObject({
  agent_mode: z.string().default("transductive"),
  // The alarm around transform(), in seconds; the whole run gets 5 more (NeMo Gym's subprocess wait).
  python_timeout_seconds: z.number().int().positive().default(30),
});
type Config = z.output<typeof Config>;

export interface NvarcOptions {
  /** The sandbox of one server instance (default: bubblewrap), made when it starts and closed when it stops. */
  sandbox?: () => SandboxProvider;
  /**
   * Run one real sandbox at startup when the instance is inductive, so a host without one fails to start (default
   * true). A transductive instance never needs it at startup; an inductive row there finds out at its verify (503).
   */
  probeAtStartup?: boolean;
}

export function nvarc({ sandbox = () => new BubblewrapSandbox(), probeAtStartup = true }: NvarcOptions = {}) {
  const sandboxes = new WeakMap<ServerContext<Config>, SandboxProvider>();

  return resourcesServer({
    name: "NVARCResourcesServer",
    config: Config,
    tools: {},
    verify: {
      // NeMo Gym's request model; the rest of a row (problem_id, variant, metadata, …) is ignored.
      input: z.object({ ...ArcTaskFields, agent_mode: z.string().nullish() }),
      async run(_state, { response, expected_output, test_input, agent_mode }, { config, server, signal }) {
        const expected = readIntGrid(expected_output);
        const mode = agent_mode || config.agent_mode;
        const text = stripThinking(assistantText(response.output));
        let predicted: Grid | null;
        if (mode === "inductive") {
          const code = extractTransformCode(text);
          predicted = code === null ? null : await runTransform(sandboxes.get(server)!, code, readIntGrid(test_input), config.python_timeout_seconds, signal);
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
    async routes(app, server) {
      const provider = sandbox();
      sandboxes.set(server, provider);
      app.addHook("onClose", () => provider.close());
      if (probeAtStartup && server.config.agent_mode === "inductive") await provider.ensureAvailable();
    },
  });
}

export default nvarc();
