// SciCode: multi-step scientific Python. The agent sends, per sub-step it generated, the code accumulated up to that
// step; each one runs against that step's test cases, whose targets come from SciCode's test_data.h5. Reward 1.0 iff
// every scored sub-step passes. Sub-steps absent from `solutions` (prefilled by the agent) are not scored; the agent's
// out-of-context sentinel is scored as a failure. Each sub-step runs in two sandboxes (harness.py): the model's code
// never shares a process with the targets or the verdict.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { ServerContext } from "../../src/server/definition.ts";
import { Semaphore } from "../../src/models/semaphore.ts";
import { BubblewrapSandbox, pythonRuntime, type SandboxProvider } from "../../src/sandbox/index.ts";
import { jsonTargets, resolveTestData } from "./test-data.ts";
import { runSubStep, type StepTargets } from "./substep.ts";

/** The agent's sentinel for a sub-step it could not generate (ran out of context). */
const OUT_OF_CONTEXT = "_ran_out_of_context_";
/** Where the check sandbox sees test_data.h5 (bound read-only; never in the capture sandbox). */
const SANDBOX_H5_PATH = "/data/test_data.h5";

const Config = z.looseObject({
  /** Sub-steps running at once (NeMo Gym: its semaphore over sub-step subprocesses). */
  num_processes: z.number().int().positive().default(20),
  /** Per-sub-step wall clock of the model's code. */
  timeout_secs: z.number().positive().default(30.0),
  /** SciCode's test_data.h5, or a JSON copy in this port's format; relative paths resolve under the Gym roots. */
  test_data_fpath: z.string().nullish(),
});
type ScicodeConfig = z.output<typeof Config>;

const SubStepSchema = z.looseObject({ step_number: z.string(), test_cases: z.array(z.string()) });

interface Sandboxes {
  capture: SandboxProvider;
  /** One check provider per test_data.h5 path: the file is a bind of its runtime. */
  check: Map<string, SandboxProvider>;
  limit: Semaphore;
}

const sandboxes = new WeakMap<ServerContext<ScicodeConfig>, Sandboxes>();

function checkSandbox(held: Sandboxes, config: ScicodeConfig, h5Path: string | undefined): SandboxProvider {
  const key = h5Path ?? "";
  let provider = held.check.get(key);
  if (!provider) {
    const runtimes = () => {
      const python = pythonRuntime();
      return h5Path ? [{ ...python, binds: [...python.binds, { source: h5Path, dest: SANDBOX_H5_PATH }] }] : [python];
    };
    provider = new BubblewrapSandbox({ runtimes, maxConcurrent: config.num_processes });
    held.check.set(key, provider);
  }
  return provider;
}

export default resourcesServer({
  name: "ScicodeResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({
      problem_id: z.string(),
      sub_steps: z.array(SubStepSchema),
      solutions: z.record(z.string(), z.string()).nullish(),
      /** The problem's imports (SciCode's `required_dependencies`): bound in the check run, where the tests' names are resolved. */
      required_dependencies: z.string().nullish(),
    }),
    async run(_state, { problem_id, sub_steps, solutions, required_dependencies }, { config, server, signal }) {
      const given = solutions ?? {};
      const scored = sub_steps.map((_, index) => index).filter((index) => Object.hasOwn(given, `${problem_id}.${index + 1}`));
      if (scored.length === 0) {
        return { reward: 0.0, problem_id, step_results: [], num_steps_passed: 0, num_steps_total: 0, problem_accuracy: false, subtask_accuracy: 0.0 };
      }
      const data = resolveTestData(config.test_data_fpath);
      const held = sandboxes.get(server as ServerContext<ScicodeConfig>)!;
      const check = checkSandbox(held, config, data.kind === "h5" ? data.path : undefined);

      const runStep = async (index: number): Promise<boolean> => {
        const code = given[`${problem_id}.${index + 1}`]!;
        if (!code || code === OUT_OF_CONTEXT) return false;
        const subStep = sub_steps[index]!;
        // SciCode's tests import its comparison helpers from the scicode package; the check run defines them itself.
        const tests = subStep.test_cases.map(sanitizeTest);
        const targets: StepTargets = data.kind === "h5" ? { h5Path: SANDBOX_H5_PATH } : { json: jsonTargets(data.path, subStep.step_number, tests.length) };
        const release = await held.limit.acquire();
        try {
          const outcome = await runSubStep(held.capture, check, {
            code,
            tests,
            preamble: required_dependencies ?? "",
            step: subStep.step_number,
            targets,
            timeoutMs: Math.ceil(config.timeout_secs * 1000),
            signal,
          });
          if (!outcome.passed) server.log.debug(`scicode: ${problem_id} step ${subStep.step_number} failed: ${outcome.reason}`);
          return outcome.passed;
        } finally {
          release();
        }
      };
      const step_results = await Promise.all(scored.map(runStep));
      const passed = step_results.filter(Boolean).length;
      const all = passed === scored.length;
      return {
        reward: all ? 1.0 : 0.0,
        problem_id,
        step_results,
        num_steps_passed: passed,
        num_steps_total: scored.length,
        problem_accuracy: all,
        subtask_accuracy: passed / scored.length,
      };
    },
  },
  floatFields: ["subtask_accuracy"],
  routes(app, server) {
    const held: Sandboxes = { capture: new BubblewrapSandbox({ maxConcurrent: server.config.num_processes }), check: new Map(), limit: new Semaphore(server.config.num_processes) };
    sandboxes.set(server, held);
    // Fail early and say why (a 503 at each verify otherwise); never a reason not to start.
    held.capture.ensureAvailable().catch((error: Error) => server.log.error(`scicode: ${error.message}`));
    app.addHook("onClose", async () => {
      await held.capture.close();
      for (const provider of held.check.values()) await provider.close();
    });
  },
  // verify reads only the request and the configured test data, so stored rollouts may be re-verified.
  reverifyMode: "stateless",
});

/** Drops the lines that import SciCode's own package (`from scicode.…`, `import scicode`); the runner provides its helpers. */
export function sanitizeTest(test: string): string {
  return test
    .split("\n")
    .filter((line) => !/^\s*(from\s+scicode\.|import\s+scicode)\b/.test(line))
    .join("\n");
}
