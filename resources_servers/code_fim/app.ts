// Code fill-in-the-middle (HumanEval-Infilling): the model's last ```python block, post-processed as NeMo-Skills does
// (infill.ts), is spliced between the task's prefix and suffix, and the program prefix + middle + suffix + test +
// check(entry_point) runs in a bubblewrap sandbox under one time limit. Reward 1.0 iff it runs to the end.
import { z } from "zod";
import { RequestValidationError, resourcesServer } from "../../src/server/index.ts";
import type { ServerContext } from "../../src/server/definition.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import { extractLastFence } from "../../src/ports/code-fence.ts";
import { runCheckProgram } from "./check.ts";
import { postprocessCompletion } from "./infill.ts";
import { ensureDataFile, INFILLING_DATA_BASE_URL, infillingDataFile, loadProblems, SPLITS, type InfillingProblem } from "./problems.ts";

const Config = z.looseObject({
  split: z.enum(SPLITS).default("random_span"),
  /** Sandboxed checks at once. */
  num_processes: z.number().int().positive().default(8),
  /** The check program's limit in seconds (one SIGALRM; the sandbox kills the run a second later). */
  timeout: z.number().positive().default(3.0),
  /** This port's: a HumanEval-Infilling .jsonl to read instead of the library's cache (null: the library's lookup); a relative path is found under the Gym roots. */
  problems_file: z.string().nullish(),
  /** This port's: where a missing split file is downloaded from (openai/human-eval-infilling; null: never download). */
  dataset_base_url: z.string().nullable().default(INFILLING_DATA_BASE_URL),
  /** This port's: the split's .gz sha256 (absent: the one pinned in problems.ts). */
  dataset_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "a sha256 is 64 hex digits").nullish(),
});
type CodeFimConfig = z.output<typeof Config>;

interface Runtime {
  sandbox: SandboxProvider;
  problems: Map<string, InfillingProblem>;
}
const runtimes = new WeakMap<ServerContext<CodeFimConfig>, Runtime>();

const badMetadata = (msg: string, input: unknown) => new RequestValidationError([{ type: "value_error", loc: ["body", "verifier_metadata", "task_id"], msg, input }]);
const accuracy = (rollout: VerifyRecord) => ({ accuracy: Number(Boolean(rollout.passed)) });

/** The file this instance reads, and where it is downloaded from when it is missing (no URL: never). */
function dataFileOf(config: CodeFimConfig): { path: string; url?: string; sha256?: string } {
  if (config.problems_file) return { path: config.problems_file };
  const file = infillingDataFile(config.split, process.env, config.dataset_base_url ?? undefined);
  if (config.dataset_base_url === null) return { path: file.path };
  return { ...file, sha256: config.dataset_sha256?.toLowerCase() ?? file.sha256 };
}

const server = resourcesServer({
  name: "CodeFIMResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({ verifier_metadata: z.record(z.string(), z.unknown()).nullish() }),
    async run(_state, { response, verifier_metadata }, { server, config, signal }) {
      const runtime = runtimes.get(server as ServerContext<CodeFimConfig>)!;
      const taskId = verifier_metadata?.task_id;
      // NeMo Gym scores these 0 with an error in metadata; a row naming no task of the split is the data's fault.
      if (taskId === undefined || taskId === null) throw badMetadata("missing task_id in verifier_metadata", verifier_metadata ?? null);
      const problem = typeof taskId === "string" ? runtime.problems.get(taskId) : undefined;
      if (!problem) throw badMetadata(`unknown task_id ${JSON.stringify(taskId)} for split ${JSON.stringify(config.split)}`, taskId);

      const none = { extracted_model_output: null, extracted_model_code: null, completion: null, status: null, passed: false, metadata: null };
      const modelOut = responseOutputText(response);
      if (modelOut === "") return { reward: 0.0, ...none };
      // strip_whitespace=False: indentation inside the fence is the infill's.
      const code = extractLastFence(modelOut, { afterThink: true, strip: false });
      if (code === "") return { reward: 0.0, ...none, extracted_model_output: modelOut };

      const completion = postprocessCompletion(code, problem.prompt, problem.suffix);
      const program = `${problem.prompt}${completion}${problem.suffix}\n${problem.test}\ncheck(${problem.entry_point})`;
      const status = await runCheckProgram(runtime.sandbox, program, config.timeout, signal);
      const passed = status === "passed";
      return { reward: passed ? 1.0 : 0.0, extracted_model_output: modelOut, extracted_model_code: code, completion, status, passed, metadata: null };
    },
  },
  routes(app, server) {
    const config = server.config;
    const file = dataFileOf(config);
    const sandbox = new BubblewrapSandbox({ maxConcurrent: config.num_processes });
    runtimes.set(server, { sandbox, problems: loadProblems(file.path, config.problems_file ? undefined : infillingDataFile(config.split).url) });
    sandbox.ensureAvailable().catch((error: Error) => server.log.error(`code_fim: ${error.message}`));
    app.addHook("onClose", async () => sandbox.close());
  },
  reverifyMode: "stateless",
  computeMetrics: (tasks) => passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: accuracy, answerKey: "completion" })),
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
    for (const pattern of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key, highestKMetrics(agentMetrics, pattern, { scoreNames: ["accuracy"] }));
    return key;
  },
});

/** The server, with the library's first-use download of a missing split file done before it starts (see problems.ts). */
export default {
  ...server,
  async register(app, context) {
    const file = dataFileOf(context.config);
    if (file.url) await ensureDataFile({ path: file.path, url: file.url, sha256: file.sha256 }, context.log);
    await server.register(app, context);
  },
} satisfies typeof server;
