// Competitive programming in Python (OpenCodeReasoning, TACO, LiveCodeBench). The code between the last two ``` lines
// of the answer runs on the row's unit tests — stdin/stdout tests, or call-based tests of `fn_name` — in a bubblewrap
// sandbox, one per verify (see README.md for why not one per test). Reward 1.0 iff every test passes; an answer that
// breaks the <think> format scores `reasoning_format_penalty` instead.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText, type NeMoGymResponse } from "../../src/protocol/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { laxValidate } from "../../src/python/pydantic/index.ts";
import { computePassMajorityMetrics, passMajorityMetricsAsDict, addAvgSampleStdDev, computeSubsetMetrics, highestKMetrics, type VerifyRecord } from "../../src/metrics/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import type { ServerContext } from "../../src/server/definition.ts";
import { pythonStrip, isLower } from "../../src/python/str.ts";
import { extractCode } from "./extract.ts";
import { runUnitTests } from "./unit-tests.ts";

const Config = z.looseObject({
  /** Sandboxed runs at once (NeMo Gym: verifies grading at once, each one process). */
  num_processes: z.number().int().positive(),
  /** Per-test limit in whole seconds (a SIGALRM in the harness, as in NeMo Gym). */
  unit_test_timeout_secs: z.number().int().positive(),
  /** Logs each verify's outcome and the harness's stderr (NeMo Gym prints its grader's debug lines). */
  debug: z.boolean(),
  reasoning_format_penalty: z.number().default(0.0),
});
type CodeGenConfig = z.output<typeof Config>;

// LiveCodeBench's unit-test format.
const UnitTestsSchema = z.object({ inputs: z.array(z.string()), outputs: z.array(z.string()), fn_name: z.string().nullish() });

/** The memory a program may use: NeMo Gym's grader sets 4 GB (RLIMIT_DATA); here the sandbox's address-space limit. */
const PROGRAM_MEMORY_BYTES = 4 * 1024 ** 3;

export interface CodeGenOptions {
  /** The sandbox of one server instance (default: bubblewrap with `num_processes` runs at once); closed with it. */
  sandbox?: (config: CodeGenConfig) => SandboxProvider;
}

/** The final answer may not contain a think tag; the reasoning summaries may hold at most one of each. */
export function hasReasoningFormatViolation(response: NeMoGymResponse, outputText: string): boolean {
  if (outputText.includes("<think>") || outputText.includes("</think>")) return true;
  let reasoning = "";
  for (const item of response.output) {
    if (item.type !== "reasoning") continue;
    for (const summary of ((item as { summary?: { text?: unknown }[] }).summary ?? [])) if (typeof summary?.text === "string") reasoning += summary.text;
  }
  const count = (tag: string) => reasoning.split(tag).length - 1;
  return count("<think>") > 1 || count("</think>") > 1;
}

const accuracy = (rollout: VerifyRecord) => ({ accuracy: Number((rollout.reward as number) > 0) });

export function codeGen({ sandbox: makeSandbox = (config) => new BubblewrapSandbox({ maxConcurrent: config.num_processes }) }: CodeGenOptions = {}) {
  const sandboxes = new WeakMap<ServerContext<CodeGenConfig>, SandboxProvider>();
  return resourcesServer({
    name: "CompCodingResourcesServer",
    config: Config,
    tools: {},
    verify: {
      input: z.object({ verifier_metadata: z.record(z.string(), z.unknown()).nullish() }),
      async run(_state, { response, verifier_metadata }, { config, server, signal }) {
        const outputText = responseOutputText(response);
        const difficulty = (verifier_metadata?.difficulty ?? null) as unknown;
        const base = { extracted_model_output: null, extracted_model_code: null, result: null, metadata: null, unit_tests_time_taken: null, reasoning_format_violation_rate: 0.0, difficulty };
        if (pythonStrip(outputText) === "") return { reward: 0.0, ...base };

        const tests = laxValidate(UnitTestsSchema, verifier_metadata?.unit_tests);
        if (!tests.success) {
          throw new RequestValidationError(tests.errors.map((error) => ({ ...error, loc: ["body", "verifier_metadata", "unit_tests", ...error.loc] })));
        }
        const code = extractCode(outputText);
        if (code === "") return { reward: 0.0, ...base, extracted_model_output: outputText };

        const sandbox = sandboxes.get(server as ServerContext<CodeGenConfig>)!;
        const start = performance.now();
        const { result, metadata } = await runUnitTests(code, tests.data, { sandbox, timeoutSecs: config.unit_test_timeout_secs, memoryBytes: PROGRAM_MEMORY_BYTES, signal });
        const unitTestsTimeTaken = (performance.now() - start) / 1000;
        if (config.debug) server.log.info(`code_gen: result ${JSON.stringify(result)} metadata ${JSON.stringify(metadata)}`);

        const violation = hasReasoningFormatViolation(response, outputText);
        const passed = result.every((r) => r === true);
        return {
          reward: violation ? config.reasoning_format_penalty : passed ? 1.0 : 0.0,
          extracted_model_output: outputText,
          extracted_model_code: code,
          result,
          metadata,
          unit_tests_time_taken: unitTestsTimeTaken,
          reasoning_format_violation_rate: violation ? 1.0 : 0.0,
          difficulty,
        };
      },
    },
    floatFields: ["unit_tests_time_taken", "reasoning_format_violation_rate"],
    routes(app, server) {
      const sandbox = makeSandbox(server.config);
      sandboxes.set(server, sandbox);
      // Fail early and say why (a 503 at each verify otherwise); never a reason not to start.
      sandbox.ensureAvailable().catch((error: Error) => server.log.error(`code_gen: ${error.message}`));
      app.addHook("onClose", async () => sandbox.close());
    },
    // verify reads only the request (and runs the program afresh), so stored rollouts may be re-verified.
    reverifyMode: "stateless",
    computeMetrics(tasks) {
      const overall = computePassMajorityMetrics(tasks, { scoreFn: accuracy, answerKey: "extracted_model_code" });
      addAvgSampleStdDev(overall);
      return { ...passMajorityMetricsAsDict(overall), ...computeSubsetMetrics(tasks, "difficulty", { scoreFn: accuracy, answerKey: "extracted_model_code" }) };
    },
    keyMetrics(agentMetrics) {
      const key: Record<string, unknown> = {};
      for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
      for (const pattern of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key, highestKMetrics(agentMetrics, pattern, { scoreNames: ["accuracy"] }));
      // Per-difficulty headlines: every lower-case prefix of a "<subset>/pass@…" key.
      const subsets = new Set(Object.keys(agentMetrics).filter((k) => k.includes("/pass@") && isLower(k[0]!)).map((k) => k.split("/pass@")[0]!));
      for (const subset of subsets) Object.assign(key, highestKMetrics(agentMetrics, `${subset}/pass@1[avg-of-{k}]`, { scoreNames: ["accuracy"] }));
      return key;
    },
  });
}

export default codeGen();
