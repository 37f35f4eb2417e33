// EvalPlus (HumanEval+, MBPP+): the model's last ```python block, completed with the task's prompt, runs on the
// task's base inputs and then its plus inputs, each set in a bubblewrap sandbox of its own, and its outputs are judged
// against the canonical solution's (computed once per task, in the sandbox too) by compare.py in a third sandbox.
// Reward 1.0 iff base and plus both pass. See README.md for the time limits and what a program cannot forge.
import { totalmem } from "node:os";
import { z } from "zod";
import { RequestValidationError, resourcesServer } from "../../src/server/index.ts";
import type { ServerContext } from "../../src/server/definition.ts";
import { ServerConfigError } from "../../src/server/config-error.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import { extractLastFence } from "../../src/ports/code-fence.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { checkCorrectness, computeExpected, type CheckOptions, type Expected } from "./checks.ts";
import { ensureDataFile, EVALPLUS_RELEASES_BASE_URL, evalPlusDataFile, loadProblems, type EvalPlusDataFile, type EvalPlusDataset, type EvalPlusProblem } from "./problems.ts";

const Config = z.looseObject({
  dataset: z.string(),
  /** Sandboxed checks at once (NeMo Gym: a semaphore of this size around each check). */
  num_processes: z.number().int().positive(),
  min_time_limit: z.number().positive().default(1.0),
  gt_time_limit_factor: z.number().positive().default(4.0),
  evalplus_version: z.string().default("default"),
  /** This port's: the HumanEvalPlus / MbppPlus .jsonl to read instead of EvalPlus's cache (null: EvalPlus's lookup); a relative path is found under the Gym roots. */
  problems_file: z.string().nullish(),
  /** This port's: where a missing cache file's release is downloaded from (EvalPlus's GitHub; null: never download). */
  dataset_base_url: z.string().nullable().default(EVALPLUS_RELEASES_BASE_URL),
  /** This port's: the release .gz's sha256 (absent: the one pinned in problems.ts for the default versions). */
  dataset_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "a sha256 is 64 hex digits").nullish(),
});
type EvalPlusConfig = z.output<typeof Config>;

/** EvalPlus's reliability_guard: 4 GiB of address space, at most the machine's memory. */
const PROGRAM_MEMORY_BYTES = Math.min(4 * 1024 ** 3, totalmem());

interface Runtime {
  sandbox: SandboxProvider;
  problems: Map<string, EvalPlusProblem>;
  /** Per task, the canonical outputs: computed at the task's first verify and kept (EvalPlus caches them on disk). */
  expected: Map<string, Promise<Expected>>;
  options: Omit<CheckOptions, "signal">;
}
const runtimes = new WeakMap<ServerContext<EvalPlusConfig>, Runtime>();

const badMetadata = (msg: string, input: unknown) => new RequestValidationError([{ type: "value_error", loc: ["body", "verifier_metadata", "task_id"], msg, input }]);

function expectedOf(runtime: Runtime, problem: EvalPlusProblem): Promise<Expected> {
  let expected = runtime.expected.get(problem.task_id);
  if (!expected) {
    expected = computeExpected(problem, runtime.options);
    runtime.expected.set(problem.task_id, expected);
    // A failure (the sandbox down, a broken canonical solution) is not kept: the next verify tries again.
    expected.catch(() => runtime.expected.delete(problem.task_id));
  }
  return expected;
}

const scores = (rollout: VerifyRecord) => ({
  passing_base_tests: Number(Boolean(rollout.is_correct)),
  passing_plus_tests: Number(Boolean(rollout.is_correct_plus)),
});

function datasetOf(config: EvalPlusConfig): EvalPlusDataset {
  if (config.dataset !== "humaneval" && config.dataset !== "mbpp") throw new ServerConfigError(`evalplus: dataset must be "humaneval" or "mbpp", got ${JSON.stringify(config.dataset)}`);
  return config.dataset;
}

/** The file this instance reads, and where it is downloaded from when it is missing (no URL: never). */
function dataFileOf(config: EvalPlusConfig): EvalPlusDataFile {
  if (config.problems_file) return { path: config.problems_file };
  const file = evalPlusDataFile(datasetOf(config), config.evalplus_version, process.env, config.dataset_base_url ?? undefined);
  if (config.dataset_base_url === null) return { path: file.path };
  return { ...file, sha256: config.dataset_sha256?.toLowerCase() ?? file.sha256 };
}

const server = resourcesServer({
  name: "EvalPlusResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({ verifier_metadata: z.record(z.string(), z.unknown()).nullish() }),
    async run(_state, { response, verifier_metadata }, { server, signal }) {
      const runtime = runtimes.get(server as ServerContext<EvalPlusConfig>)!;
      const taskId = verifier_metadata?.task_id;
      // NeMo Gym scores these 0 with an error in metadata; a row that names no task of the dataset is the data's fault.
      if (taskId === undefined || taskId === null) throw badMetadata("missing task_id in verifier_metadata", verifier_metadata ?? null);
      const problem = typeof taskId === "string" ? runtime.problems.get(taskId) : undefined;
      if (!problem) throw badMetadata(`unknown task_id ${JSON.stringify(taskId)} for dataset ${JSON.stringify(server.config.dataset)}`, taskId);

      const none = { extracted_model_output: null, extracted_model_code: null, base_status: null, plus_status: null, is_correct: false, is_correct_plus: false, metadata: null };
      const modelOut = responseOutputText(response);
      if (pythonStrip(modelOut) === "") return { reward: 0.0, ...none };
      const code = extractLastFence(modelOut, { strip: true });
      if (code === "") return { reward: 0.0, ...none, extracted_model_output: modelOut };

      // EvalPlus's evaluate() prepends the prompt to a completion (imports, signature); a full solution is kept as is.
      const solution = code.startsWith(problem.prompt) ? code : problem.prompt + code;
      const expected = await expectedOf(runtime, problem);
      const result = await checkCorrectness(problem, solution, expected, { ...runtime.options, signal });
      const isCorrect = result.base.status === "pass";
      const isCorrectPlus = isCorrect && result.plus.status === "pass";
      return {
        reward: isCorrectPlus ? 1.0 : 0.0,
        extracted_model_output: modelOut,
        extracted_model_code: code,
        base_status: result.base.status,
        plus_status: result.plus.status,
        is_correct: isCorrect,
        is_correct_plus: isCorrectPlus,
        metadata: { base_details: result.base.details, plus_details: result.plus.details },
      };
    },
  },
  routes(app, server) {
    const config = server.config;
    const dataset = datasetOf(config);
    const file = dataFileOf(config);
    const problems = loadProblems(file.path, file.url ?? evalPlusDataFile(dataset, config.evalplus_version).url);
    const sandbox = new BubblewrapSandbox({ maxConcurrent: config.num_processes });
    const options = { sandbox, dataset, minTimeLimit: config.min_time_limit, gtTimeLimitFactor: config.gt_time_limit_factor, memoryBytes: PROGRAM_MEMORY_BYTES };
    runtimes.set(server, { sandbox, problems, expected: new Map(), options });
    // Fail early and say why (each verify would be a 503); never a reason not to start.
    sandbox.ensureAvailable().catch((error: Error) => server.log.error(`evalplus: ${error.message}`));
    app.addHook("onClose", async () => sandbox.close());
  },
  // verify reads only the request and the dataset, and runs the program afresh.
  reverifyMode: "stateless",
  computeMetrics: (tasks) => passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: scores, answerKey: "extracted_model_code" })),
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
    const scoreNames = ["passing_base_tests", "passing_plus_tests"];
    for (const pattern of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key, highestKMetrics(agentMetrics, pattern, { scoreNames }));
    return key;
  },
});

/** The server, with EvalPlus's first-use download of a missing dataset file done before it starts (see problems.ts). */
export default {
  ...server,
  async register(app, context) {
    await ensureDataFile(dataFileOf(context.config), context.log);
    await server.register(app, context);
  },
} satisfies typeof server;
