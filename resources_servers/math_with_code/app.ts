// Math with a Python tool (OpenMathReasoning problems): the model calls execute_python, whose interpreter keeps its
// variables between the calls of a rollout, then writes \boxed{answer}. The reward is 1 when that answer (or, when
// no assistant message has one, the last \boxed{} the tool printed) matches expected_result — NeMo Gym's own
// normalise-and-compare, answer.ts. Every cell runs in the project's sandbox (src/sandbox), never on the host:
// a session's state is rebuilt each call by replaying its earlier cells (python-session.ts).
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import type { ServerContext } from "../../src/server/index.ts";
import { answersMatch, extractAnswer } from "./answer.ts";
import { executeCell, newPythonSession, type ExecutePythonReply, type PythonSession } from "./python-session.ts";

const Config = z.looseObject({
  // Seconds each cell may run (NeMo Gym's SIGALRM). NeMo Gym reads 0 as "no limit"; here it must be positive.
  max_execution_time: z.number().int().positive().default(10),
});
type Config = z.output<typeof Config>;

/** The parameters the dataset rows show the model (NeMo Gym's request model is just `code: str`). */
const EXECUTE_PYTHON_PARAMETERS = {
  properties: { code: { type: "string", title: "Python Code", description: "The Python code to execute for the calculation." } },
  type: "object",
  required: ["code"],
  additionalProperties: false,
};

const ENDED: ExecutePythonReply = { success: true, stdout: "", stderr: "", error_message: null, result: null };

export interface MathWithCodeOptions {
  /** The sandbox of one server instance (default: bubblewrap); made when the instance starts, closed when it stops. */
  sandbox?: () => SandboxProvider;
  /** Run one real sandbox at startup, so a host without one fails to start instead of answering 503s (default true). */
  probeAtStartup?: boolean;
}

export function mathWithCode({ sandbox = () => new BubblewrapSandbox(), probeAtStartup = true }: MathWithCodeOptions = {}) {
  const sandboxes = new WeakMap<ServerContext<Config>, SandboxProvider>();
  const sandboxOf = (server: ServerContext<Config>) => {
    const provider = sandboxes.get(server);
    if (!provider) throw new Error("math_with_code: the sandbox is made when the server starts");
    return provider;
  };
  let warnedMissing = false;

  return resourcesServer({
    name: "PythonExecutorResourcesServer",
    config: Config,
    state: (): PythonSession => newPythonSession(),
    tools: {
      execute_python: tool({
        description: "Execute Python code to perform calculations. You have access to numpy, scipy, pandas and basic math operations.",
        input: z.object({ code: z.string() }),
        modelSchema: EXECUTE_PYTHON_PARAMETERS,
        run: (session: PythonSession, { code }, { config, server, signal }) =>
          executeCell(session, code, {
            sandbox: sandboxOf(server),
            timeoutSeconds: config.max_execution_time,
            signal,
            onMissingLibraries(names) {
              if (warnedMissing) return;
              warnedMissing = true;
              server.log.warn(`math_with_code: the sandbox's Python has no ${names.join(", ")}; those names are unbound in the model's cells (pip install ${names.join(" ")})`);
            },
          }),
      }),
    },
    verify: {
      // NeMo Gym's PythonMathRunRequest; expected_code_contains is accepted and, as there, never read.
      input: z.object({ expected_result: z.string(), expected_code_contains: z.string().default("") }),
      run(session, { response, expected_result }) {
        try {
          const extracted = extractAnswer(response.output);
          const accuracy = answersMatch(extracted, expected_result);
          return { reward: accuracy ? 1 : 0, extracted_answer: extracted, accuracy };
        } finally {
          // The rollout is over: its interpreter state goes (NeMo Gym ends the session's worker).
          if (session) session.cells = [];
        }
      },
    },
    async routes(app, server, sessions) {
      const provider = sandbox();
      sandboxes.set(server, provider);
      app.addHook("onClose", () => provider.close());
      if (probeAtStartup) await provider.ensureAvailable();
      // Not a model tool: the agent (or a client) ends a session early. NeMo Gym answers with an empty success.
      app.post("/end_session", async (request) => {
        const session = await sessions.get(request.sessionId);
        if (session) session.cells = [];
        return ENDED;
      });
    },
  });
}

export default mathWithCode();
