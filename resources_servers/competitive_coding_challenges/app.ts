// C++17 contest problems with subtasks (IOI/USACO style). Each test of the row's subtask is compiled and run in a
// bubblewrap sandbox by the problem's own compile.sh / run.sh from the test metadata (`test_file`); run.sh prints the
// test's score. Reward (binary): the subtask's score reaches its maximum, or the problem's total reaches the sum of its
// maxima; (fraction): the share of tests scoring 1. Without the metadata, or without the row's problem in it, verify
// answers 501 naming what is missing: an answer nobody could grade gets no reward, not a 0.
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { ServerContext } from "../../src/server/definition.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { TestMetadata, type Problem } from "./metadata.ts";
import { cppRuntime } from "./cpp-runtime.ts";
import { evaluate, type Evaluation } from "./evaluate.ts";

const Config = z.looseObject({
  /** test_metadata.jsonl; relative paths are read from this server's folder, as NeMo Gym's server runs there. */
  test_file: z.string().default("data/test_metadata.jsonl"),
  /** Tests of one verify in flight at once, and sandboxed runs at once overall (NeMo Gym: its test thread pool). */
  test_batch_size: z.number().int().positive().default(32),
  /** Accepted for NeMo Gym's configs; its verify path does not use it either. */
  num_parallel_requests: z.number().int().positive().default(16),
  /** Multiplies each problem's own time limit (TIME_LIMIT_SCALE for run.sh) and the run's wall clock. */
  time_scale: z.number().positive().default(2.0),
  /** Accepted for NeMo Gym's configs (its host folder shared with the sandbox container); each test here gets a fresh sandbox work dir. */
  shared_dir: z.string().default("/tmp"),
  reward_mode: z.enum(["binary", "fraction"]).default("binary"),
});
type CccConfig = z.output<typeof Config>;

interface Instance {
  sandbox: SandboxProvider;
  metadata?: TestMetadata;
}
const instances = new WeakMap<ServerContext<CccConfig>, Instance>();

const metadataPath = (config: CccConfig) => (isAbsolute(config.test_file) ? config.test_file : join(import.meta.dirname, config.test_file));

/** The text of every assistant message, joined by newlines and stripped. */
function assistantText(response: NeMoGymResponse): string {
  const texts: string[] = [];
  for (const item of response.output as { type?: string; role?: string; content?: unknown }[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") texts.push(item.content);
    else if (Array.isArray(item.content)) for (const part of item.content) if (typeof part?.text === "string") texts.push(part.text);
  }
  return texts.join("\n").trim();
}

const maxScore = (subtask: Problem["subtasks"][string]) => (subtask.aggregation === "sum_tests" ? subtask.test_names.length : subtask.score || 0);

function reward(config: CccConfig, row: { subtask?: string | null; subtask_score?: number | null }, problem: Problem, evaluation: Evaluation): number {
  const results = evaluation.test_case_results;
  if (config.reward_mode === "fraction") {
    let outputs = row.subtask && row.subtask in results ? results[row.subtask]!.outputs : [];
    if (!(row.subtask && row.subtask in results)) {
      const seen = new Set<string>();
      outputs = Object.entries(results).flatMap(([subtask, result]) =>
        result.outputs.filter((output, index) => {
          const key = output.test_name ?? `${subtask}#${index}`;
          return seen.has(key) ? false : (seen.add(key), true);
        }),
      );
    }
    return outputs.length === 0 ? 0 : outputs.filter((o) => o.score >= 1).length / outputs.length;
  }
  if (row.subtask && row.subtask in results) {
    const score = results[row.subtask]!.score;
    const meta = problem.subtasks[row.subtask];
    const max = row.subtask_score ?? (meta ? maxScore(meta) : null);
    return (max && score >= max) || (max === null && score > 0) ? 1 : 0;
  }
  const total = Object.values(results).reduce((sum, r) => sum + (r.score || 0), 0);
  const maxTotal = Object.values(problem.subtasks).reduce((sum, s) => sum + maxScore(s), 0);
  if (maxTotal && total >= maxTotal) return 1;
  return maxTotal === 0 && Object.values(results).every((r) => r.score > 0) ? 1 : 0;
}

const accuracy = (rollout: VerifyRecord) => {
  const results = ((rollout.details as { test_case_results?: Record<string, { score?: number }> } | undefined)?.test_case_results ?? {}) as Record<string, { score?: number }>;
  const values = Object.values(results);
  return { accuracy: values.length > 0 && values.every((r) => (r?.score ?? 0) > 0) ? 1 : 0 };
};

export default resourcesServer({
  name: "CompetitiveCodingChallengesResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.looseObject({
      competition_id: z.string().nullish(),
      problem_id: z.string(),
      subtask: z.string().nullish(),
      name: z.string().nullish(),
      subtask_score: z.number().nullish(),
      total_time: z.number().nullish(),
    }),
    async run(_state, body, { config, server, signal }) {
      const instance = instances.get(server as ServerContext<CccConfig>)!;
      instance.metadata ??= TestMetadata.load(metadataPath(config));
      const problem = instance.metadata.problem(body.problem_id, body.competition_id);
      const { responses_create_params: _params, response, total_time, ...row } = body;
      const name = row.name || body.problem_id;
      const evaluation = await evaluate(
        { name, problemId: body.problem_id, subtask: body.subtask ?? null, generation: assistantText(response), totalTime: total_time ?? undefined },
        problem,
        { sandbox: instance.sandbox, timeScale: config.time_scale, runAllTests: config.reward_mode === "fraction", testBatchSize: config.test_batch_size, signal },
      );
      return {
        reward: reward(config, body, problem, evaluation),
        competition_id: body.competition_id ?? null,
        problem_id: body.problem_id,
        subtask: body.subtask ?? null,
        name,
        subtask_score: body.subtask_score ?? null,
        details: evaluation,
        num_tests_run: evaluation.num_tests_run,
        total_test_execution_time_s: evaluation.total_test_execution_time_s,
        mean_test_execution_time_s: evaluation.mean_test_execution_time_s,
        ...Object.fromEntries(Object.entries(row).filter(([key]) => !["competition_id", "problem_id", "subtask", "name", "subtask_score"].includes(key))),
      };
    },
  },
  floatFields: ["subtask_score", "total_test_execution_time_s", "mean_test_execution_time_s"],
  routes(app, server) {
    const sandbox = new BubblewrapSandbox({ maxConcurrent: server.config.test_batch_size, runtimes: () => [cppRuntime()] });
    instances.set(server, { sandbox });
    sandbox.ensureAvailable().catch((error: Error) => server.log.error(`competitive_coding_challenges: ${error.message}`));
    app.addHook("onClose", async () => sandbox.close());
  },
  reverifyMode: "stateless",
  computeMetrics(tasks) {
    const metrics: Record<string, unknown> = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: accuracy, answerKey: "extracted_code" }));
    // Competition-style total: per problem, the best score of each subtask over all rollouts, summed.
    const best = new Map<string, Map<string, number>>();
    for (const rollouts of tasks) {
      for (const rollout of rollouts) {
        const problemId = (rollout.problem_id ?? rollout.ioi_id) as string | undefined;
        if (!problemId) continue;
        const results = ((rollout.details as { test_case_results?: Record<string, { score?: number }> } | undefined)?.test_case_results ?? {}) as Record<string, { score?: number }>;
        const subtasks = best.get(problemId) ?? new Map<string, number>();
        best.set(problemId, subtasks);
        for (const [subtask, result] of Object.entries(results)) {
          const achieved = Number(result?.score ?? 0) || 0;
          if (achieved > (subtasks.get(subtask) ?? 0)) subtasks.set(subtask, achieved);
        }
      }
    }
    let totalScore = 0;
    const perProblem: Record<string, unknown> = {};
    for (const [problemId, subtasks] of best) {
      const problemTotal = [...subtasks.values()].reduce((a, b) => a + b, 0);
      // Caps would come from the metadata; without it loaded they are unknown (0), as in NeMo Gym.
      perProblem[problemId] = { total: { score: problemTotal, max_score: 0 }, subtasks: Object.fromEntries([...subtasks].map(([name, score]) => [name, { score, max_score: 0 }])) };
      totalScore += problemTotal;
    }
    metrics.total_score = Math.trunc(totalScore);
    metrics.per_problem_subtask_scores = perProblem;
    return metrics;
  },
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy"] }));
    Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { scoreNames: ["accuracy"] }));
    if ("total_score" in agentMetrics) key.total_score = agentMetrics.total_score;
    return key;
  },
});
