// The pass@k family, pinned to NeMo Gym's compute_pass_majority_metrics & co. (test_aggregate_metrics.py),
// with expected numbers worked out by hand.
import { test, describe as suite } from "node:test";
import assert from "node:assert/strict";
import {
  addAvgSampleStdDev,
  computeAggregateMetrics,
  computePassMajorityMetrics,
  computeSubsetMetrics,
  highestKMetrics,
  passAtKUnbiased,
  passMajorityMetricsAsDict,
  stdDevAcrossRuns,
  stdErrAcrossRuns,
  type VerifyRecord,
} from "../../src/metrics/index.ts";

const rewards = (...values: number[]): VerifyRecord[] => values.map((reward) => ({ reward }));
const answered = (...pairs: [number, string | null][]): VerifyRecord[] => pairs.map(([reward, extracted_answer]) => ({ reward, extracted_answer }));

function close(actual: number | undefined, expected: number, tolerance = 1e-9): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tolerance, `${actual} is not within ${tolerance} of ${expected}`);
}

suite("passAtKUnbiased", () => {
  test("1 - C(n-c, k) / C(n, k)", () => {
    assert.equal(passAtKUnbiased(4, 2, 1), 0.5); // 1 - 2/4
    assert.equal(passAtKUnbiased(4, 2, 2), 1 - 1 / 6); // 1 - C(2,2)/C(4,2)
    assert.equal(passAtKUnbiased(10, 3, 5), 1 - 21 / 252); // C(7,5) = 21, C(10,5) = 252
  });

  test("1 when fewer than k rollouts are wrong, 0 when none is right", () => {
    assert.equal(passAtKUnbiased(4, 2, 3), 1);
    assert.equal(passAtKUnbiased(5, 0, 5), 0);
    assert.equal(passAtKUnbiased(5, 0, 2), 0);
  });

  test("large n neither overflows nor loses the answer", () => {
    // C(n-1, k)/C(n, k) = (n-k)/n for one correct rollout out of n
    close(passAtKUnbiased(200, 1, 50), 50 / 200, 1e-15);
    close(passAtKUnbiased(5000, 1, 1000), 1000 / 5000, 1e-12);
    // C(60,30) and C(100,30) exceed 2^53: exact integers are divided once, as Python does
    close(passAtKUnbiased(100, 40, 30), 1 - 1.1826458156486e17 / 2.9372339821610944e25, 1e-12);
    // product form beyond 256 rollouts: C(10,5) = 252 over C(3000,5)
    close(passAtKUnbiased(3000, 2990, 5), 1 - 252 / ((3000 * 2999 * 2998 * 2997 * 2996) / 120), 1e-15);
  });

  test("rejects impossible arguments", () => {
    assert.throws(() => passAtKUnbiased(3, 4, 1), RangeError);
    assert.throws(() => passAtKUnbiased(3, 1, 4), RangeError);
    assert.throws(() => passAtKUnbiased(3, 1.5, 1), RangeError);
  });
});

suite("computePassMajorityMetrics", () => {
  const mixed = [rewards(1, 1, 1, 1), rewards(0, 0, 0, 0), rewards(1, 0, 1, 0)];

  test("binary pass@k uses the unbiased estimator, in percent", () => {
    const { metrics } = computePassMajorityMetrics(mixed);
    // task scores at k=1: 1, 0, 1 - 2/4; at k=2: 1, 0, 1 - 1/6; at k≥3 the mixed task has fewer than k wrong
    assert.equal(metrics["pass@1/accuracy"], 50);
    assert.equal(metrics["pass@2/accuracy"], 61.111111111111114);
    close(metrics["pass@2/accuracy"], (100 * (1 + 0 + 5 / 6)) / 3, 1e-12);
    assert.equal(metrics["pass@3/accuracy"], 200 / 3);
    assert.equal(metrics["pass@4/accuracy"], 200 / 3);
  });

  test("the whole result, in NeMo Gym's key order", () => {
    const result = computePassMajorityMetrics(mixed);
    assert.deepEqual(result.scoreNames, ["accuracy"]);
    assert.equal(result.maxK, 4);
    // run i across tasks: [1,0,1], [1,0,0], [1,0,1], [1,0,0]
    assert.deepEqual(result.perSampleAggregate, { accuracy: [200 / 3, 100 / 3, 200 / 3, 100 / 3] });
    const dict = passMajorityMetricsAsDict(result);
    assert.equal(
      JSON.stringify(dict),
      JSON.stringify({
        "pass@1/accuracy": 50,
        "pass@1[avg-of-1]/accuracy": 200 / 3,
        "pass@2/accuracy": 61.111111111111114,
        "pass@1[avg-of-2]/accuracy": 50,
        "pass@3/accuracy": 200 / 3,
        // task means over the first 3: 1, 0, 2/3
        "pass@1[avg-of-3]/accuracy": 55.55555555555555,
        "pass@4/accuracy": 200 / 3,
        "pass@1[avg-of-4]/accuracy": 50,
        per_sample_aggregate: { accuracy: [200 / 3, 100 / 3, 200 / 3, 100 / 3] },
        // spread of [66.67, 33.33]: std √(2 × 16.67² / 1) = 23.57, / √2 = 16.67
        "pass@1[avg-of-2]/accuracy/std_dev_across_runs": 23.570226039551585,
        "pass@1[avg-of-2]/accuracy/std_err_across_runs": 16.666666666666668,
        // spread of [66.67, 33.33, 66.67]: std 19.245, / √3
        "pass@1[avg-of-3]/accuracy/std_dev_across_runs": 19.245008972987527,
        "pass@1[avg-of-3]/accuracy/std_err_across_runs": 11.111111111111112,
        "pass@1[avg-of-4]/accuracy/std_dev_across_runs": 19.245008972987527,
        "pass@1[avg-of-4]/accuracy/std_err_across_runs": 9.622504486493764,
      }),
    );
    close(dict["pass@1[avg-of-2]/accuracy/std_dev_across_runs"] as number, (100 / 3) * Math.SQRT1_2, 1e-12);
    close(dict["pass@1[avg-of-4]/accuracy/std_dev_across_runs"] as number, Math.sqrt((4 * (100 / 6) ** 2) / 3), 1e-12);
    assert.ok(!("per_sample_aggregate" in result.metrics));
  });

  test("pass@1[avg-of-k] is the mean of each task's first k scores, averaged over tasks", () => {
    const { metrics } = computePassMajorityMetrics([rewards(1, 0), rewards(0, 1), rewards(1, 1)]);
    assert.equal(metrics["pass@1[avg-of-2]/accuracy"], (100 * 2) / 3);
  });

  test("continuous scores use the best of the first k", () => {
    const { metrics } = computePassMajorityMetrics([rewards(0.25, 0.75, 0.5), rewards(0.5, 0.5, 0.5)]);
    assert.equal(metrics["pass@1/accuracy"], (100 * (0.25 + 0.5)) / 2);
    assert.equal(metrics["pass@2/accuracy"], (100 * (0.75 + 0.5)) / 2);
  });

  test("a task with fewer than k rollouts is left out of pass@k but not of avg-of-k", () => {
    const { metrics } = computePassMajorityMetrics([rewards(1), rewards(0, 0)]);
    assert.equal(metrics["pass@2/accuracy"], 0);
    assert.equal(metrics["pass@1[avg-of-2]/accuracy"], 50);
  });

  test("majority@k votes on (answer, score); ties average", () => {
    const { metrics } = computePassMajorityMetrics(
      [answered([1, "A"], [1, "A"], [0, "B"]), answered([0, "C"], [0, "C"], [1, "D"])],
      { answerKey: "extracted_answer" },
    );
    assert.equal(metrics["majority@3/accuracy"], 50); // A wins (right), C wins (wrong)
    assert.equal(metrics["majority@1/accuracy"], 50);
    const tie = computePassMajorityMetrics([answered([0, "C"], [1, "D"])], { answerKey: "extracted_answer" });
    assert.equal(tie.metrics["majority@2/accuracy"], 50);
  });

  test("no_answer is a binary score when an answer key is given", () => {
    const { metrics, scoreNames } = computePassMajorityMetrics([answered([1, "A"], [0, "B"]), answered([0, null], [0, null])], { answerKey: "extracted_answer" });
    assert.deepEqual(scoreNames, ["accuracy", "no_answer"]);
    // task 0: 0 of 2 without an answer, task 1: 2 of 2
    assert.equal(metrics["pass@1[avg-of-2]/no_answer"], 50);
    assert.equal(metrics["pass@2/no_answer"], 50);
  });

  test("a task without any answer counts 0 in majority@k", () => {
    const some = computePassMajorityMetrics([answered([1, "A"], [1, "A"]), answered([0, null], [0, null])], { answerKey: "extracted_answer" });
    assert.equal(some.metrics["majority@2/accuracy"], 50);
    const none = computePassMajorityMetrics([answered([0, null], [0, null]), answered([0, null], [0, null])], { answerKey: "extracted_answer" });
    assert.equal(none.metrics["majority@2/accuracy"], 0);
  });

  test("without an answer key there is no majority@k and no no_answer", () => {
    const { metrics } = computePassMajorityMetrics([answered([1, "A"], [0, "B"])]);
    assert.ok(!Object.keys(metrics).some((k) => k.startsWith("majority@") || k.includes("no_answer")));
  });

  test("spread across runs is positive when runs differ", () => {
    const { metrics } = computePassMajorityMetrics([rewards(1, 0), rewards(0, 0), rewards(1, 1)]);
    // runs: [1,0,1] → 66.67, [0,0,1] → 33.33
    close(metrics["pass@1[avg-of-2]/accuracy/std_dev_across_runs"], (100 / 3) * Math.SQRT1_2, 1e-12);
    close(metrics["pass@1[avg-of-2]/accuracy/std_err_across_runs"], 100 / 6, 1e-12);
  });

  test("several named scores, booleans as 0/1", () => {
    const tasks = [
      [{ reward: 1.0, library_reward: true }, { reward: 0.0, library_reward: false }],
      [{ reward: 0.0, library_reward: true }, { reward: 1.0, library_reward: true }],
    ];
    const { metrics } = computePassMajorityMetrics(tasks, { scoreFn: (r) => ({ accuracy: r.reward as number, symbolic_accuracy: r.library_reward as boolean }) });
    for (const key of ["pass@1/accuracy", "pass@1/symbolic_accuracy", "pass@1[avg-of-2]/accuracy", "pass@1[avg-of-2]/symbolic_accuracy"]) assert.ok(key in metrics);
    assert.equal(metrics["pass@1[avg-of-2]/symbolic_accuracy"], 75);
    assert.deepEqual(Object.keys(metrics).slice(0, 4), ["pass@1/accuracy", "pass@1[avg-of-1]/accuracy", "pass@1/symbolic_accuracy", "pass@1[avg-of-1]/symbolic_accuracy"]);
  });

  test("no tasks give no metrics", () => {
    const result = computePassMajorityMetrics([]);
    assert.deepEqual(result.metrics, {});
    assert.equal(result.maxK, 0);
    assert.deepEqual(passMajorityMetricsAsDict(result), {});
  });

  test("the default score needs a numeric reward", () => {
    assert.throws(() => computePassMajorityMetrics([[{ answer: "x" }]]), /no numeric "reward"/);
  });

  test("subsetKey appends the per-subset metrics", () => {
    const tasks = [
      [{ reward: 1.0, difficulty: "easy" }, { reward: 1.0, difficulty: "easy" }],
      [{ reward: 0.0, difficulty: "hard" }, { reward: 0.0, difficulty: "hard" }],
    ];
    const { metrics } = computePassMajorityMetrics(tasks, { subsetKey: "difficulty" });
    assert.equal(metrics["easy/pass@1/accuracy"], 100);
    assert.equal(metrics["hard/pass@2/accuracy"], 0);
    assert.equal(Object.keys(metrics)[0], "pass@1/accuracy");
  });
});

suite("addAvgSampleStdDev", () => {
  test("adds the mean over tasks of the within-task std dev, in score units", () => {
    const result = computePassMajorityMetrics([rewards(1, 0), rewards(0, 0), rewards(1, 1)]);
    assert.ok(!("pass@1[avg-of-2]/accuracy/avg_sample_std_dev" in result.metrics));
    addAvgSampleStdDev(result);
    // per task std of two values: √.5, 0, 0
    close(result.metrics["pass@1[avg-of-2]/accuracy/avg_sample_std_dev"], Math.SQRT1_2 / 3, 1e-15);
    // it comes after per_sample_aggregate in NeMo Gym's dict
    assert.equal(Object.keys(passMajorityMetricsAsDict(result)).at(-1), "pass@1[avg-of-2]/accuracy/avg_sample_std_dev");
  });

  test("does nothing with one rollout per task", () => {
    const result = computePassMajorityMetrics([rewards(1), rewards(0)]);
    const before = { ...result.metrics };
    addAvgSampleStdDev(result);
    assert.deepEqual(result.metrics, before);
  });
});

suite("computeSubsetMetrics", () => {
  test("groups tasks by a field of their first rollout", () => {
    const tasks = [
      [{ reward: 1.0, difficulty: "easy" }, { reward: 1.0, difficulty: "easy" }],
      [{ reward: 0.0, difficulty: "hard" }, { reward: 0.0, difficulty: "hard" }],
      [{ reward: 1.0, difficulty: "easy" }, { reward: 0.0, difficulty: "easy" }],
    ];
    const metrics = computeSubsetMetrics(tasks, "difficulty");
    assert.equal(metrics["easy/pass@1/accuracy"], 75);
    assert.equal(metrics["hard/pass@1/accuracy"], 0);
    assert.ok(!Object.keys(metrics).some((k) => k.includes("per_sample_aggregate")));
    assert.equal(Object.keys(metrics)[0], "easy/pass@1/accuracy");
  });

  test("tasks without the field (or with an empty value) are left out", () => {
    assert.deepEqual(computeSubsetMetrics([rewards(1, 0)], "nonexistent"), {});
    assert.deepEqual(computeSubsetMetrics([[{ reward: 1, difficulty: "" }]], "difficulty"), {});
  });
});

suite("highestKMetrics", () => {
  test("the entries at the highest k, for the given scores", () => {
    const agentMetrics = {
      "pass@1/accuracy": 50.0,
      "pass@2/accuracy": 75.0,
      "pass@4/accuracy": 90.0,
      "pass@4/no_answer": 5.0,
      "pass@1[avg-of-4]/accuracy/std_dev_across_runs": 1.5,
    };
    assert.deepEqual(highestKMetrics(agentMetrics, "pass@{k}", { scoreNames: ["accuracy"] }), { "pass@4/accuracy": 90.0 });
  });

  test("excluded score names", () => {
    assert.deepEqual(highestKMetrics({ "majority@2/accuracy": 80.0, "majority@2/no_answer": 3.0 }, "majority@{k}", { excludeNames: ["no_answer"] }), { "majority@2/accuracy": 80.0 });
  });

  test("avg-of-k patterns, without spread statistics", () => {
    const result = highestKMetrics(
      {
        "pass@1[avg-of-2]/accuracy": 60.0,
        "pass@1[avg-of-4]/accuracy": 65.0,
        "pass@1[avg-of-4]/no_answer": 1.0,
        "pass@1[avg-of-4]/accuracy/std_dev_across_runs": 2.0,
      },
      "pass@1[avg-of-{k}]",
    );
    assert.deepEqual(result, { "pass@1[avg-of-4]/accuracy": 65.0, "pass@1[avg-of-4]/no_answer": 1.0 });
  });

  test("nothing matching gives {}", () => {
    assert.deepEqual(highestKMetrics({}, "pass@{k}"), {});
    assert.deepEqual(highestKMetrics({ unrelated: 1.0, "pass@1[avg-of-2]/accuracy": 1 }, "pass@{k}"), {});
  });
});

suite("spread across runs", () => {
  test("sample std dev and std err of per-run averages", () => {
    assert.equal(stdDevAcrossRuns([40, 60]), Math.sqrt(200));
    assert.equal(stdErrAcrossRuns([40, 60]), Math.sqrt(200) / Math.SQRT2);
    assert.ok(Number.isNaN(stdDevAcrossRuns([50])));
  });
});

test("a computeMetrics hook returning the pass@k dict reaches agent_metrics whole", async () => {
  const verifyResponses = [0, 1].flatMap((t) => [0, 1].map((r) => ({ _ng_task_index: t, _ng_rollout_index: r, reward: t === 0 ? 1 : r })));
  const { agent_metrics } = await computeAggregateMetrics(verifyResponses, {
    computeMetrics: (tasks) => passMajorityMetricsAsDict(computePassMajorityMetrics(tasks)),
  });
  assert.equal(agent_metrics["pass@2/accuracy"], 100);
  assert.equal(agent_metrics["pass@1[avg-of-2]/accuracy"], 75);
  assert.deepEqual(agent_metrics.per_sample_aggregate, { accuracy: [50, 100] });
});
