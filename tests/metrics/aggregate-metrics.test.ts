// /aggregate_metrics and the reward profile behind it, pinned to NeMo Gym's behaviour (its
// test_aggregate_metrics.py and test_reward_profile.py) with expected numbers worked out by hand.
import { test, describe as suite } from "node:test";
import assert from "node:assert/strict";
import {
  computeAggregateMetrics,
  groupByTask,
  profileCompletionSummary,
  profileFromData,
  prepareForSerialization,
  stripForAggregation,
  type VerifyRecord,
} from "../../src/metrics/index.ts";

/** Same order of keys and same values (JSON text equality pins the key order assert.deepEqual ignores). */
function assertSameJson(actual: unknown, expected: unknown): void {
  assert.deepEqual(actual, expected);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected));
}

function verifyResponses(tasks: number, rolloutsPerTask: number, reward = (t: number, r: number) => (t + r) % 2): VerifyRecord[] {
  const responses: VerifyRecord[] = [];
  for (let t = 0; t < tasks; t++) {
    for (let r = 0; r < rolloutsPerTask; r++) responses.push({ _ng_task_index: t, _ng_rollout_index: r, reward: reward(t, r) });
  }
  return responses;
}

suite("computeAggregateMetrics", () => {
  test("no verify responses give empty lists and dicts", async () => {
    assertSameJson(await computeAggregateMetrics([]), { group_level_metrics: [], agent_metrics: {}, key_metrics: {} });
  });

  test("one group per task with its reward statistics", async () => {
    // task 0 rewards 0,1,0,1 and task 1 rewards 1,0,1,0: mean .5, sample std √(4 × .25 / 3) = √(1/3)
    const result = await computeAggregateMetrics(verifyResponses(2, 4));
    assert.equal(result.group_level_metrics.length, 2);
    for (const group of result.group_level_metrics) {
      assert.equal(group["mean/reward"], 0.5);
      assert.equal(group["median/reward"], 0.5);
      assert.equal(group["std/reward"], Math.sqrt(1 / 3));
    }
    assert.equal(result.agent_metrics["mean/reward"], 0.5);
  });

  test("overall stats over every rollout", async () => {
    const result = await computeAggregateMetrics(verifyResponses(3, 5, () => 1.0));
    assert.equal(result.agent_metrics["mean/reward"], 1);
    assert.equal(result.agent_metrics["std/reward"], 0);
    assert.deepEqual(result.key_metrics, { "mean/reward": 1 });
  });

  test("default key_metrics are the mean/* entries of agent_metrics", async () => {
    const result = await computeAggregateMetrics([
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, response: { usage: { input_tokens: 3, output_tokens: 5, total_tokens: 8 } } },
    ]);
    assertSameJson(result.key_metrics, { "mean/reward": 1, "mean/input_tokens": 3, "mean/output_tokens": 5, "mean/total_tokens": 8 });
  });

  test("no histogram keys anywhere", async () => {
    const result = await computeAggregateMetrics(verifyResponses(2, 3));
    for (const group of result.group_level_metrics) assert.ok(!Object.keys(group).some((k) => k.startsWith("histogram")));
    assert.ok(!Object.keys(result.agent_metrics).some((k) => k.startsWith("histogram")));
  });

  test("full answer: key order, usage numbers, booleans as 0/1, strings and nested dicts ignored", async () => {
    const result = await computeAggregateMetrics([
      { _ng_task_index: 1, _ng_rollout_index: 0, reward: 1, correct: true, response: { usage: { input_tokens: 10, output_tokens: 4, total_tokens: 14, input_tokens_details: { cached_tokens: 0 } } } },
      { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0.5, correct: false, judge: "B", response: { usage: { input_tokens: 6, output_tokens: 2, total_tokens: 8 } } },
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 0, correct: false, response: { usage: { input_tokens: 4, output_tokens: 2, total_tokens: 6 } } },
    ]);
    const sample = { agent_ref: { name: "agent" } };
    assertSameJson(result.group_level_metrics, [
      {
        _ng_task_index: 0,
        "mean/reward": 0.25, "mean/correct": 0, "mean/input_tokens": 5, "mean/output_tokens": 2, "mean/total_tokens": 7,
        "max/reward": 0.5, "max/correct": 0, "max/input_tokens": 6, "max/output_tokens": 2, "max/total_tokens": 8,
        "min/reward": 0, "min/correct": 0, "min/input_tokens": 4, "min/output_tokens": 2, "min/total_tokens": 6,
        "median/reward": 0.25, "median/correct": 0, "median/input_tokens": 5, "median/output_tokens": 2, "median/total_tokens": 7,
        // √((.25² + .25²) / 1), 0, √((1 + 1) / 1), 0, √2
        "std/reward": Math.sqrt(0.125), "std/correct": 0, "std/input_tokens": Math.SQRT2, "std/output_tokens": 0, "std/total_tokens": Math.SQRT2,
        sample,
        num_rollouts: 2,
        expected_num_rollouts: 2,
        missing_num_rollouts: 0,
        reward_profile_completion_pct: 100,
        rollout_infos: [
          { rollout_id: "0:0", _ng_task_index: 0, _ng_rollout_index: 0, reward: 0, input_tokens: 4, output_tokens: 2, total_tokens: 6, correct: 0 },
          { rollout_id: "0:1", _ng_task_index: 0, _ng_rollout_index: 1, reward: 0.5, input_tokens: 6, output_tokens: 2, total_tokens: 8, correct: 0 },
        ],
      },
      {
        _ng_task_index: 1,
        "mean/reward": 1, "mean/correct": 1, "mean/input_tokens": 10, "mean/output_tokens": 4, "mean/total_tokens": 14,
        "max/reward": 1, "max/correct": 1, "max/input_tokens": 10, "max/output_tokens": 4, "max/total_tokens": 14,
        "min/reward": 1, "min/correct": 1, "min/input_tokens": 10, "min/output_tokens": 4, "min/total_tokens": 14,
        "median/reward": 1, "median/correct": 1, "median/input_tokens": 10, "median/output_tokens": 4, "median/total_tokens": 14,
        // a single rollout: every std is undefined, so the complete columns report 0
        "std/reward": 0, "std/correct": 0, "std/input_tokens": 0, "std/output_tokens": 0, "std/total_tokens": 0,
        sample,
        num_rollouts: 1,
        expected_num_rollouts: 1,
        missing_num_rollouts: 0,
        reward_profile_completion_pct: 100,
        rollout_infos: [{ rollout_id: "1:0", _ng_task_index: 1, _ng_rollout_index: 0, reward: 1, input_tokens: 10, output_tokens: 4, total_tokens: 14, correct: 1 }],
      },
    ]);
    const agentMetrics = {
      "mean/reward": 0.5, "mean/correct": 1 / 3, "mean/input_tokens": 20 / 3, "mean/output_tokens": 8 / 3, "mean/total_tokens": 28 / 3,
      "max/reward": 1, "max/correct": 1, "max/input_tokens": 10, "max/output_tokens": 4, "max/total_tokens": 14,
      "min/reward": 0, "min/correct": 0, "min/input_tokens": 4, "min/output_tokens": 2, "min/total_tokens": 6,
      "median/reward": 0.5, "median/correct": 0, "median/input_tokens": 6, "median/output_tokens": 2, "median/total_tokens": 8,
      // squared deviations /2: (.25+0+.25)/2, (2/9+4/9)/2, (64+4+100)/9/2, (4+4+16)/9/2, (100+16+196)/9/2 — the last
      // bits are those of pandas' two-pass computation, which NeMo Gym reports.
      "std/reward": 0.5, "std/correct": 0.5773502691896258, "std/input_tokens": 3.055050463303893, "std/output_tokens": 1.1547005383792515, "std/total_tokens": 4.163331998932265,
    };
    assertSameJson(result.agent_metrics, agentMetrics);
    assert.ok(Math.abs(agentMetrics["std/input_tokens"] - Math.sqrt(168 / 9 / 2)) < 1e-12);
    assertSameJson(result.key_metrics, { "mean/reward": 0.5, "mean/correct": 1 / 3, "mean/input_tokens": 20 / 3, "mean/output_tokens": 8 / 3, "mean/total_tokens": 28 / 3 });
  });

  test("task indices are kept, sorted, including non-sequential ones", async () => {
    const result = await computeAggregateMetrics([
      { _ng_task_index: 300, _ng_rollout_index: 0, reward: 0.5, response: {} },
      { _ng_task_index: 100, _ng_rollout_index: 0, reward: 1.0, response: {} },
      { _ng_task_index: 200, _ng_rollout_index: 0, reward: 0.0, response: {} },
    ]);
    assert.deepEqual(result.group_level_metrics.map((g) => g._ng_task_index), [100, 200, 300]);
    assert.deepEqual(result.group_level_metrics.map((g) => g["mean/reward"]), [1, 0, 0.5]);
  });

  test("missing task and rollout indices default to 0", async () => {
    const result = await computeAggregateMetrics([{ reward: 0.25 }]);
    assert.equal(result.group_level_metrics[0]._ng_task_index, 0);
    assert.deepEqual(result.group_level_metrics[0].rollout_infos, [{ rollout_id: "0:0", _ng_task_index: 0, _ng_rollout_index: 0, reward: 0.25 }]);
  });

  test("two verify responses with the same (task, rollout) are an error, as in NeMo Gym", async () => {
    await assert.rejects(
      computeAggregateMetrics([{ _ng_task_index: 0, _ng_rollout_index: 1, reward: 1 }, { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0 }]),
      /Duplicate materialized input row for rollout key \(0, 1\)/,
    );
  });

  test("a column missing from a task is left out of that task's group", async () => {
    const result = await computeAggregateMetrics([
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, judge_score: 3 },
      { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0 },
    ]);
    assert.ok(!("mean/judge_score" in result.group_level_metrics[1]));
    assert.equal(result.group_level_metrics[0]["std/judge_score"], 0);
    // overall: judge_score has one value (std undefined) while reward has two, so only reward gets a std
    assert.equal(result.agent_metrics["mean/judge_score"], 3);
    assert.ok(!("std/judge_score" in result.agent_metrics));
    assert.equal(result.agent_metrics["std/reward"], Math.SQRT1_2);
  });
});

suite("computeAggregateMetrics hooks", () => {
  test("computeMetrics receives the verify responses grouped by task, and its result joins agent_metrics", async () => {
    let seen: VerifyRecord[][] = [];
    const reward = (t: number, r: number) => (t === 0 ? 1 : t === 1 ? 0 : r % 2);
    const result = await computeAggregateMetrics(verifyResponses(3, 4, reward), {
      computeMetrics(tasks) {
        seen = tasks;
        const passAtK = tasks.filter((rollouts) => rollouts.some((r) => (r.reward as number) >= 1)).length / tasks.length;
        return { "pass@k": passAtK, "pass@1_avg_of_k": 0.5 };
      },
      keyMetrics: (agentMetrics) => ({ "pass@k": agentMetrics["pass@k"], "pass@1_avg_of_k": agentMetrics["pass@1_avg_of_k"] }),
    });
    assert.equal(seen.length, 3);
    assert.ok(seen.every((rollouts) => rollouts.length === 4));
    assert.equal(result.agent_metrics["pass@k"], 2 / 3);
    assert.deepEqual(Object.keys(result.key_metrics), ["pass@k", "pass@1_avg_of_k"]);
    // custom metrics come after the profile's statistics
    assert.deepEqual(Object.keys(result.agent_metrics).slice(-2), ["pass@k", "pass@1_avg_of_k"]);
  });

  test("computeMetrics sees custom verify fields and may be async", async () => {
    const result = await computeAggregateMetrics(
      [
        { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1.0, judgement: "[[A>>B]]" },
        { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0.0, judgement: "[[B>A]]" },
      ],
      {
        async computeMetrics(tasks) {
          assert.deepEqual(tasks[0].map((r) => r.judgement), ["[[A>>B]]", "[[B>A]]"]);
          return { custom_metric: 42.0 };
        },
      },
    );
    assert.equal(result.agent_metrics.custom_metric, 42);
  });

  test("per_task_metrics are merged into the groups with the same task index, not into agent_metrics", async () => {
    const result = await computeAggregateMetrics(
      [
        { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1.0, response: {} },
        { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0.0, response: {} },
      ],
      {
        computeMetrics: () => ({
          custom_agg: 99,
          per_task_metrics: [
            { _ng_task_index: 0, difficulty: "easy" },
            { _ng_task_index: 1, difficulty: "hard", "mean/reward": -1 },
          ],
        }),
      },
    );
    assert.equal(result.agent_metrics.custom_agg, 99);
    assert.ok(!("per_task_metrics" in result.agent_metrics));
    assert.equal(result.group_level_metrics[0].difficulty, "easy");
    assert.equal(result.group_level_metrics[1].difficulty, "hard");
    // an existing key is overwritten in place
    assert.equal(result.group_level_metrics[1]["mean/reward"], -1);
    assert.equal(Object.keys(result.group_level_metrics[1]).at(-1), "difficulty");
  });

  test("a custom metric overriding a profile statistic keeps its place; key_metrics see it", async () => {
    const result = await computeAggregateMetrics(verifyResponses(1, 2), { computeMetrics: () => ({ "mean/reward": 0.9 }) });
    assert.equal(Object.keys(result.agent_metrics)[0], "mean/reward");
    assert.deepEqual(result.key_metrics, { "mean/reward": 0.9 });
  });

  test("groupByTask: tasks sorted by index, rollouts in the order given", () => {
    const a = { _ng_task_index: 2, _ng_rollout_index: 1 };
    const b = { _ng_task_index: 2, _ng_rollout_index: 0 };
    const c = { reward: 1 };
    assert.deepEqual(groupByTask([a, c, b]), [[c], [a, b]]);
  });
});

suite("stripForAggregation", () => {
  test("drops responses_create_params and response but keeps response.usage, last", () => {
    const usage = { input_tokens: 1, output_tokens: 2, total_tokens: 3 };
    const line = { responses_create_params: { input: [] }, response: { id: "r", output: [], usage }, reward: 1, _ng_task_index: 0, _ng_rollout_index: 1, agent_ref: { name: "a" } };
    assertSameJson(stripForAggregation(line), { reward: 1, _ng_task_index: 0, _ng_rollout_index: 1, agent_ref: { name: "a" }, response: { usage } });
  });

  test("no response key when there is no usage, or an empty one", () => {
    assert.deepEqual(stripForAggregation({ response: { usage: null }, reward: 0 }), { reward: 0 });
    assert.deepEqual(stripForAggregation({ response: { usage: {} }, reward: 0 }), { reward: 0 });
    assert.deepEqual(stripForAggregation({ response: null, reward: 0 }), { reward: 0 });
  });
});

// --- the offline reward profile (gym eval profile), ported from test_reward_profile.py -----------------

function row(task: number, rollout: number, extra: Record<string, unknown> = {}): VerifyRecord {
  return { _ng_task_index: task, _ng_rollout_index: rollout, responses_create_params: { input: [] }, agent_ref: { name: "my_agent" }, ...extra };
}

function result(task: number, rollout: number, reward = 1.0, totalTokens = 7): VerifyRecord {
  return { _ng_task_index: task, _ng_rollout_index: rollout, response: { usage: { total_tokens: totalTokens } }, reward };
}

suite("profileFromData", () => {
  test("statistics per task and per agent; sample is the input row without indices", () => {
    const rows = [0, 1, 2].flatMap((t) => [0, 1].map((r) => row(t, r, { x: t })));
    const results = [0, 1, 2].flatMap((t) => [
      { _ng_task_index: t, _ng_rollout_index: 0, response: { usage: { "abc usage": 1 } }, reward: 0, bool: true },
      { _ng_task_index: t, _ng_rollout_index: 1, response: { usage: { "abc usage": 1 } }, reward: 1, bool: false },
    ]);
    const { groupLevelMetrics, agentLevelMetrics } = profileFromData(rows, results);
    assert.equal(groupLevelMetrics.length, 3);
    groupLevelMetrics.forEach((group, t) => {
      assertSameJson(
        Object.fromEntries(Object.entries(group).filter(([k]) => k.includes("/"))),
        {
          "mean/reward": 0.5, "mean/bool": 0.5, "mean/abc usage": 1,
          "max/reward": 1, "max/bool": 1, "max/abc usage": 1,
          "min/reward": 0, "min/bool": 0, "min/abc usage": 1,
          "median/reward": 0.5, "median/bool": 0.5, "median/abc usage": 1,
          "std/reward": Math.SQRT1_2, "std/bool": Math.SQRT1_2, "std/abc usage": 0,
        },
      );
      assert.deepEqual(group.sample, { responses_create_params: { input: [] }, agent_ref: { name: "my_agent" }, x: t });
    });
    assert.equal(agentLevelMetrics.length, 1);
    // six rewards 0,1,0,1,0,1: squared deviations 6 × .25 = 1.5, / 5 → √0.3
    assert.equal(agentLevelMetrics[0]["std/reward"], 0.5477225575051661);
    assert.ok(Math.abs((agentLevelMetrics[0]["std/reward"] as number) - Math.sqrt(0.3)) < 1e-15);
    assert.deepEqual(Object.keys(agentLevelMetrics[0]).at(-1), "agent_ref");
    assert.deepEqual(agentLevelMetrics[0].agent_ref, { name: "my_agent" });
  });

  test("results without a reward profile the other columns", () => {
    const rows = [row(0, 0), row(0, 1), row(1, 0)];
    const results = rows.map((r) => ({ _ng_task_index: r._ng_task_index, _ng_rollout_index: r._ng_rollout_index, response: { usage: { "abc usage": 1 } } }));
    const { groupLevelMetrics } = profileFromData(rows, results);
    assert.equal(groupLevelMetrics[1]["mean/abc usage"], 1);
    assert.ok(!("mean/reward" in groupLevelMetrics[1]));
  });

  test("columns that only some tasks have: a single rollout's std is 0 where present, dropped where absent", () => {
    const rows = [row(0, 0), row(1, 0)];
    const results = [
      { _ng_task_index: 0, _ng_rollout_index: 0, response: { usage: { "abc usage": 1 } }, first_col: 1 },
      { _ng_task_index: 1, _ng_rollout_index: 0, response: { usage: { "abc usage": 1 } }, second_col: 2 },
    ];
    const { groupLevelMetrics, agentLevelMetrics } = profileFromData(rows, results);
    const stats = (entry: Record<string, unknown>) => Object.fromEntries(Object.entries(entry).filter(([k]) => k.includes("/")));
    assertSameJson(stats(groupLevelMetrics[0]), {
      "mean/first_col": 1, "mean/abc usage": 1, "max/first_col": 1, "max/abc usage": 1, "min/first_col": 1, "min/abc usage": 1,
      "median/first_col": 1, "median/abc usage": 1, "std/first_col": 0, "std/abc usage": 0,
    });
    assertSameJson(stats(groupLevelMetrics[1]), {
      "mean/abc usage": 1, "mean/second_col": 2, "max/abc usage": 1, "max/second_col": 2, "min/abc usage": 1, "min/second_col": 2,
      "median/abc usage": 1, "median/second_col": 2, "std/abc usage": 0, "std/second_col": 0,
    });
    // overall, "abc usage" has two values (std 0), so the one-value columns keep an undefined std and lose it
    assertSameJson(agentLevelMetrics[0], {
      "mean/first_col": 1, "mean/abc usage": 1, "mean/second_col": 2, "max/first_col": 1, "max/abc usage": 1, "max/second_col": 2,
      "min/first_col": 1, "min/abc usage": 1, "min/second_col": 2, "median/first_col": 1, "median/abc usage": 1, "median/second_col": 2,
      "std/abc usage": 0,
      agent_ref: { name: "my_agent" },
    });
  });

  test("rollout_infos are sorted by rollout index and carry usage and numeric fields", () => {
    const rows = [row(0, 0), row(0, 1)];
    const results = [
      { _ng_task_index: 0, _ng_rollout_index: 1, response: { usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 } }, reward: 1.0, verifier_score: 3.5 },
      { _ng_task_index: 0, _ng_rollout_index: 0, response: { usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } }, reward: 0.0, verifier_score: 1.5 },
    ];
    const [group] = prepareForSerialization(profileFromData(rows, results).groupLevelMetrics);
    assert.equal(group._ng_task_index, 0);
    assert.equal(group.num_rollouts, 2);
    assertSameJson(group.rollout_infos, [
      { rollout_id: "0:0", _ng_task_index: 0, _ng_rollout_index: 0, reward: 0.0, input_tokens: 3, output_tokens: 4, total_tokens: 7, verifier_score: 1.5 },
      { rollout_id: "0:1", _ng_task_index: 0, _ng_rollout_index: 1, reward: 1.0, input_tokens: 5, output_tokens: 7, total_tokens: 12, verifier_score: 3.5 },
    ]);
    assert.equal(group["mean/input_tokens"], 4);
    assert.equal(group["mean/verifier_score"], 2.5);
  });

  test("missing results need allowPartialRollouts", () => {
    assert.throws(() => profileFromData([row(0, 0), row(0, 1)], [result(0, 0)]), /\+\+allow_partial_rollouts=True/);
  });

  test("a partial profile covers the completed rollouts and reports completion", () => {
    const rows = [0, 1, 2].flatMap((t) => [0, 1].map((r) => row(t, r)));
    const results = [result(0, 0, 0.0, 5), result(0, 1), result(1, 0)];
    const groups = prepareForSerialization(profileFromData(rows, results, { allowPartialRollouts: true }).groupLevelMetrics);
    assert.deepEqual(groups.map((g) => g._ng_task_index), [0, 1]);
    assert.deepEqual(groups.map((g) => [g.num_rollouts, g.expected_num_rollouts, g.missing_num_rollouts]), [[2, 2, 0], [1, 2, 1]]);
    assert.deepEqual(groups.map((g) => g.reward_profile_completion_pct), [100, 50]);
    assertSameJson(profileCompletionSummary(rows, results), {
      expected_rollout_rows: 6,
      completed_rollout_rows: 3,
      missing_rollout_rows: 3,
      extra_rollout_rows: 0,
      reward_profile_completion_pct: 50,
      total_input_rows: 3,
      complete_input_rows: 1,
      partial_input_rows: 1,
      missing_input_rows: 1,
    });
  });

  test("results without an input row are always an error", () => {
    assert.throws(() => profileFromData([row(0, 0)], [result(0, 0), result(1, 0)], { allowPartialRollouts: true }), /no matching materialized input.*\[\(1, 0\)\]/);
  });

  test("agents are profiled separately, sorted by name", () => {
    const rows = [row(0, 0, { agent_ref: { name: "b" } }), row(1, 0, { agent_ref: { name: "a" } })];
    const { agentLevelMetrics } = profileFromData(rows, [result(0, 0, 1), result(1, 0, 0)]);
    assert.deepEqual(agentLevelMetrics.map((m) => [m.agent_ref, m["mean/reward"]]), [[{ name: "a" }, 0], [{ name: "b" }, 1]]);
  });
});
