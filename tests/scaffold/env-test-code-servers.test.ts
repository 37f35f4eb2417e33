// `gym env test` on the code servers whose shipped configs name data this project does not ship (a problems file
// in a library's cache, downloaded databases, test metadata that is not public): each runs every check on its own
// example data through its data/env_test.yaml, and its verifier cases (a full reward, a zero for a wrong answer, a
// zero for an answer with no code, and a row verify must refuse with its status) score as they say. One server
// start per environment, over real HTTP, each in its real sandbox.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { runEnvironmentChecks, type CheckResult } from "../../src/scaffold/env-test.ts";
import { startEnvironment } from "../../src/scaffold/env-test/start.ts";
import { readVerifierCases, runVerifierCases } from "../../src/testing/verifier-cases.ts";

const CODE_SERVERS = ["bird_sql", "code_fim", "competitive_coding_challenges", "evalplus", "scicode", "spider2_lite"];

describe("the code servers pass every check of gym env test on their own example data", () => {
  for (const name of CODE_SERVERS) {
    test(name, async () => {
      const results = await runEnvironmentChecks({ rootDir: PROJECT_ROOT, name, callDeadlineMs: 60_000 });
      const byId = Object.fromEntries(results.map((r) => [r.id, r])) as Record<CheckResult["id"], CheckResult>;
      assert.deepEqual(results.filter((r) => !r.ok).map((r) => r.id), [], JSON.stringify(results, null, 2));
      assert.ok(byId.server.notes.includes(`merged resources_servers/${name}/data/env_test.yaml over resources_servers/${name}/configs/${name}.yaml`), byId.server.notes.join("\n"));
      // Every kind, a refusal among them; no kind missing (that would be a note).
      assert.match(byId.verify.summary, /full_reward ×\d+, zero_reward ×\d+, malformed ×\d+, refused ×\d+\) get the expected reward or status$/);
      assert.deepEqual(byId.verify.notes, []);
    });
  }
});

describe("a refused case", () => {
  const name = "spider2_lite";
  const casesFile = join(PROJECT_ROOT, "resources_servers", name, "data", "verifier_cases.jsonl");

  test("fails the check when verify scores the row, or refuses it with another status, naming the line and both", async () => {
    const start = await startEnvironment({ rootDir: PROJECT_ROOT, name, envDir: join(PROJECT_ROOT, "resources_servers", name), callDeadlineMs: 30_000 });
    assert.ok(start.started, start.started ? "" : start.problem);
    const { environment } = start;
    try {
      const { cases, problems } = readVerifierCases(casesFile, "cases.jsonl");
      assert.deepEqual(problems, []);
      const scored = cases.find((c) => c.verifierCase.case === "full_reward")!;
      const refused = cases.find((c) => c.verifierCase.case === "refused")!;
      const { expected_reward: _reward, ...scoredFields } = scored.verifierCase as typeof scored.verifierCase & { expected_reward: number };
      const wrong = [
        { lineNumber: scored.lineNumber, verifierCase: { ...scoredFields, case: "refused" as const, expected_status: 501 } },
        { lineNumber: refused.lineNumber, verifierCase: { ...refused.verifierCase, expected_status: 422 } },
      ];
      const outcome = await runVerifierCases({ client: environment.client, instance: environment.instanceName, cases: wrong, shownFile: "cases.jsonl", callDeadlineMs: 30_000 });
      assert.equal(outcome.problems.length, 2, outcome.problems.join("\n"));
      assert.equal(outcome.problems[0], `cases.jsonl:${scored.lineNumber} (refused): expected status 501, but /verify answered 200 with reward 1`);
      assert.match(outcome.problems[1]!, new RegExp(`^cases\\.jsonl:${refused.lineNumber} \\(refused\\): expected status 422, but ${name}_resources_server/verify answered 501: .*no database for db_id`));
    } finally {
      await environment.close();
    }
  });

  test("needs an expected_status of 4xx/5xx and takes no expected_reward; a scored case still needs its reward", () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-refused-"));
    try {
      const row = JSON.parse(readFileSync(casesFile, "utf8").split("\n")[0]!).row;
      const file = join(dir, "cases.jsonl");
      const lines = [
        { case: "refused", row, output_text: "" },
        { case: "refused", row, output_text: "", expected_status: 200 },
        { case: "refused", row, output_text: "", expected_status: 501, expected_reward: 0 },
        { case: "zero_reward", row, output_text: "", expected_status: 501 },
        { case: "refused", row, output_text: "", expected_status: 422 },
      ];
      writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n"));
      const { cases, problems } = readVerifierCases(file, "cases.jsonl");
      assert.deepEqual(cases.map((c) => c.lineNumber), [5]);
      assert.deepEqual(problems, [
        "cases.jsonl:1: expected_status: Field required",
        "cases.jsonl:2: expected_status: Input should be greater than or equal to 400",
        "cases.jsonl:3: expected_reward: a refused case expects a status, not a reward: leave expected_reward out",
        "cases.jsonl:4: expected_reward: Field required",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
