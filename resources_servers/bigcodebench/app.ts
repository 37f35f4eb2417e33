// BigCodeBench: the model's code (last ```python block after </think>, or the whole answer when it has no fence),
// calibrated as NeMo-Skills does (code_prompt + "\n    pass\n" + code), runs with the task's unittest suite in a
// bubblewrap sandbox on Debian's /usr/bin/python3. Reward 1.0 iff every test passes. A task whose libraries that
// interpreter cannot import is a 501 naming them, never a 0 (see README.md).
import { totalmem } from "node:os";
import { z } from "zod";
import { RequestValidationError, resourcesServer } from "../../src/server/index.ts";
import type { ServerContext } from "../../src/server/definition.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { BubblewrapSandbox, pythonRuntime, shellRuntime, type SandboxProvider } from "../../src/sandbox/index.ts";
import { extractLastFence } from "../../src/ports/code-fence.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { missingLibraries, missingLibrariesError, runTests } from "./run.ts";

const Config = z.looseObject({
  num_processes: z.number().int().positive().default(8),
  /** NeMo Gym's venv builder's; read and reported, not used: the interpreter is Debian's /usr/bin/python3. */
  venv_path: z.string().default(".bcb_venv"),
  bcb_python_version: z.string().default("3.10"),
  /** RLIMIT_AS / RLIMIT_DATA / RLIMIT_STACK of the test run, in MiB (bigcodebench's reliability_guard). */
  max_as_limit: z.number().int().nonnegative().default(30 * 1024),
  max_data_limit: z.number().int().nonnegative().default(30 * 1024),
  max_stack_limit: z.number().int().nonnegative().default(10),
  min_time_limit: z.number().positive().default(1.0),
  gt_time_limit: z.number().positive().default(20.0),
  /** The whole run's wall clock in seconds (NeMo Gym's timeout around its runner subprocess). */
  subprocess_timeout: z.number().positive().default(240.0),
});
type BcbConfig = z.output<typeof Config>;

/** The interpreter whose libraries are Debian's python3-* packages (/usr/lib/python3/dist-packages). */
export const BCB_INTERPRETER = "/usr/bin/python3";
/** bigcodebench's TIMEOUT_LIMIT: its alarm is max(240, min_time_limit, gt_time_limit) + 1 seconds. */
const TIMEOUT_LIMIT = 240;

interface Runtime {
  sandbox: SandboxProvider;
  /** Per task, the libraries it lacks: checked at the task's first verify and kept. */
  libraries: Map<string, Promise<Record<string, string>>>;
}
const runtimes = new WeakMap<ServerContext<BcbConfig>, Runtime>();

const Metadata = z.looseObject({
  task_id: z.string().nullish(),
  code_prompt: z.string().default(""),
  test: z.string(),
  entry_point: z.string(),
  /** BigCodeBench's own rows list the libraries: a list, or its Python repr ("['numpy', 'os']"). */
  libs: z.union([z.array(z.string()), z.string()]).nullish(),
});

function libsOf(libs: string[] | string | null | undefined): string[] {
  if (libs === null || libs === undefined) return [];
  if (Array.isArray(libs)) return libs;
  return [...libs.matchAll(/['"]([A-Za-z_][\w.]*)['"]/g)].map((match) => match[1]!.split(".")[0]!);
}

function librariesOf(runtime: Runtime, key: string, sources: string[], libs: string[]) {
  let missing = runtime.libraries.get(key);
  if (!missing) {
    missing = missingLibraries(runtime.sandbox, sources, libs);
    runtime.libraries.set(key, missing);
    missing.catch(() => runtime.libraries.delete(key));
  }
  return missing;
}

const accuracy = (rollout: VerifyRecord) => ({ accuracy: Number((rollout.reward as number) > 0) });

export default resourcesServer({
  name: "BigCodeBenchResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({ verifier_metadata: z.record(z.string(), z.unknown()).nullish() }),
    async run(_state, { response, verifier_metadata }, { server, config, signal }) {
      const runtime = runtimes.get(server as ServerContext<BcbConfig>)!;
      const taskId = (verifier_metadata?.task_id ?? null) as unknown;
      const modelOut = responseOutputText(response);
      const none = { extracted_model_output: null, extracted_model_code: null, details: null, task_id: taskId };
      if (pythonStrip(modelOut) === "") return { reward: 0.0, ...none, status: "empty_output" };
      const code = extractLastFence(modelOut, { afterThink: true, strip: true, withoutFence: "whole" });
      if (code === "") return { reward: 0.0, ...none, extracted_model_output: modelOut, status: "no_code_block" };

      const parsed = Metadata.safeParse(verifier_metadata ?? {});
      if (!parsed.success) {
        throw new RequestValidationError(parsed.error.issues.map((issue) => ({ type: "missing", loc: ["body", "verifier_metadata", ...issue.path.map(String)], msg: issue.message, input: verifier_metadata ?? null })));
      }
      const meta = parsed.data;
      const libs = libsOf(meta.libs);
      const missing = await librariesOf(runtime, JSON.stringify([meta.code_prompt, meta.test, libs]), [meta.code_prompt, meta.test], libs);
      if (Object.keys(missing).length > 0) throw missingLibrariesError(taskId, missing);

      // NeMo-Skills' calibrated=True: the entry point exists even when the model wrote only its body.
      const calibrated = meta.code_prompt + "\n    pass\n" + code;
      const alarmSecs = Math.max(TIMEOUT_LIMIT, Math.max(config.min_time_limit, config.gt_time_limit)) + 1;
      const result = await runTests(runtime.sandbox, calibrated, meta.test, {
        alarmSecs,
        wallSecs: Math.min(config.subprocess_timeout, alarmSecs + 1),
        memoryBytes: Math.min(Math.max(config.max_as_limit, 1) * 1024 * 1024, totalmem()),
        rlimitsMiB: { max_as_limit: config.max_as_limit, max_data_limit: config.max_data_limit, max_stack_limit: config.max_stack_limit },
        signal,
      });
      return { reward: result.status === "pass" ? 1.0 : 0.0, extracted_model_output: modelOut, extracted_model_code: code, status: result.status, details: result.details, task_id: taskId };
    },
  },
  routes(app, server) {
    const config = server.config;
    const sandbox = new BubblewrapSandbox({ maxConcurrent: config.num_processes, runtimes: () => [pythonRuntime(BCB_INTERPRETER), shellRuntime()] });
    runtimes.set(server, { sandbox, libraries: new Map() });
    server.log.info(
      `bigcodebench: tests run on ${BCB_INTERPRETER} with Debian's python3-* libraries (venv_path ${JSON.stringify(config.venv_path)} and bcb_python_version ${JSON.stringify(config.bcb_python_version)} are NeMo Gym's venv builder's and are not used); a task whose libraries are absent is a 501 naming them`,
    );
    sandbox.ensureAvailable().catch((error: Error) => server.log.error(`bigcodebench: ${error.message}`));
    app.addHook("onClose", async () => sandbox.close());
  },
  reverifyMode: "stateless",
  computeMetrics: (tasks) => passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: accuracy, answerKey: "extracted_model_code" })),
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
    for (const pattern of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key, highestKMetrics(agentMetrics, pattern, { scoreNames: ["accuracy"] }));
    return key;
  },
});
