// `gym env test` on the LLM-judge environments: each one's data/env_test.yaml declares a scripted_model in
// judge_rules mode, wired as its judge_model_server, which env test starts alongside; every check passes and the
// verifier cases (a pass, a fail and the odd verdict texts: none, several, in a code block, lowercase, extra
// whitespace) score as they say. A judge call that fails is the judge_failed row, which fails a case, never a 0.
// All in this one process, one server graph per environment, over real HTTP.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { runEnvironmentChecks, type CheckResult } from "../../src/scaffold/env-test.ts";
import { startEnvironment } from "../../src/scaffold/env-test/start.ts";
import { readVerifierCases, runVerifierCases } from "../../src/testing/verifier-cases.ts";

const JUDGE_SERVERS = [
  "abstention",
  "arena_judge",
  "equivalence_llm_judge",
  "frontierscience_judge",
  "inverse_if",
  "jailbreak_detection",
  "math_with_judge",
  "multichallenge",
  "omniscience",
  "over_refusal_detection",
  "physics_judge",
  "proof_judge",
  "proof_verification",
  "simpleqa",
  "terminus_judge",
  "text_to_sql",
  "ugphysics_judge",
  "xstest",
];

/**
 * Judged elsewhere: their judge prompt is a pinned file fetched on first use (NewtonBench's text; NeMo Gym's
 * judge_prompt.py and finance_sec_search's prompt YAMLs), which `gym env test` on a machine without the network cannot
 * read, so their env test covers the unjudged checks and their own tests drive the judged path with a local prompt
 * and a scripted judge. polymath's judge is math_with_judge's (src/ports/math/library-judge.ts, checked here through
 * math_with_judge); its own tests drive it with a scripted judge, and its verifier cases include 501s for the
 * math-verify port's gaps, which a judge-on env test would not reach.
 */
const JUDGED_IN_THEIR_OWN_TESTS = ["finance_sec_search", "newton_bench", "polymath", "tavily_search"];

test("every environment whose configs name a judge_model_server is in the list", () => {
  const named = readdirSync(join(PROJECT_ROOT, "resources_servers")).filter((name) => {
    if (JUDGED_IN_THEIR_OWN_TESTS.includes(name)) return false;
    const configs = join(PROJECT_ROOT, "resources_servers", name, "configs");
    return existsSync(configs) && readdirSync(configs).some((file) => /^\s+judge_model_server:/m.test(readFileSync(join(configs, file), "utf8")));
  });
  assert.deepEqual(named.sort(), JUDGE_SERVERS);
});

describe("the judge environments pass every check of gym env test with a scripted judge", () => {
  for (const name of JUDGE_SERVERS) {
    test(name, async () => {
      const results = await runEnvironmentChecks({ rootDir: PROJECT_ROOT, name, callDeadlineMs: 30_000 });
      const byId = Object.fromEntries(results.map((r) => [r.id, r])) as Record<CheckResult["id"], CheckResult>;
      assert.deepEqual(results.filter((r) => !r.ok).map((r) => r.id), [], JSON.stringify(results, null, 2));
      assert.ok(byId.server.notes.includes(`started model server 'env_test_judge' (scripted_model) alongside, as resources_servers/${name}/data/env_test.yaml declares it`), byId.server.notes.join("\n"));
      assert.match(byId.verify.summary, /\(full_reward ×\d+, zero_reward ×\d+, malformed ×\d+\) get the expected reward$/);
    });
  }

  test("an environment with no configs/<name>.yaml runs from its data/env_test.yaml alone (jailbreak_detection)", async () => {
    const start = await startEnvironment({ rootDir: PROJECT_ROOT, name: "jailbreak_detection", envDir: join(PROJECT_ROOT, "resources_servers", "jailbreak_detection"), callDeadlineMs: 30_000 });
    assert.ok(start.started, start.started ? "" : start.problem);
    try {
      assert.equal(start.configFile, "resources_servers/jailbreak_detection/data/env_test.yaml");
      assert.ok(!start.notes.some((note) => note.startsWith("merged ")), start.notes.join("\n"));
    } finally {
      await start.environment.close();
    }
  });
});

test("a case the scripted judge has no rule for fails the check as judge_failed, though it expects reward 0", async () => {
  const name = "physics_judge";
  const start = await startEnvironment({ rootDir: PROJECT_ROOT, name, envDir: join(PROJECT_ROOT, "resources_servers", name), callDeadlineMs: 30_000 });
  assert.ok(start.started, start.started ? "" : start.problem);
  try {
    const { cases } = readVerifierCases(join(PROJECT_ROOT, "resources_servers", name, "data", "verifier_cases.jsonl"), "cases.jsonl");
    const zero = cases.find((c) => c.verifierCase.case === "zero_reward")!;
    const unknown = [{ lineNumber: 99, verifierCase: { ...zero.verifierCase, output_text: "An answer no rule knows." } }];
    const outcome = await runVerifierCases({ client: start.environment.client, instance: start.environment.instanceName, cases: unknown, shownFile: "cases.jsonl", callDeadlineMs: 30_000 });
    assert.equal(outcome.problems.length, 1);
    assert.match(outcome.problems[0]!, /^cases\.jsonl:99 \(zero_reward\): expected reward 0, but physics_judge\/verify reported judge_failed: env_test_judge\/v1\/chat\/completions answered 404/);
  } finally {
    await start.environment.close();
  }
});
