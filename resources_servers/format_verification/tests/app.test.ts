// format_verification's verify (through fastify inject): regex / inline_prose line counting and string_match markers with
// Python `re` semantics, the response NeMo Gym returns, its 500s, and the authored data and verifier cases.
// Expected values are what NeMo Gym's verify returns for the same requests (checked with python3).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedServer, injectServer, type Item, readRows, responseWith } from "../../../src/testing/index.ts";
import formatVerification from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => (env = await injectServer(formatVerification, {}, { instanceName: "format_verification" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "List the names." }] };

const verify = (verifier: unknown, output: Item[]) =>
  env.post("/verify", { responses_create_params: params, verifier, response: responseWith(output) });
async function score(verifier: unknown, text: string) {
  const answer = await verify(verifier, [assistantMessage(text)]);
  assert.equal(answer.status, 200, answer.text);
  const { reward, match_details } = answer.json<Record<string, unknown>>();
  return { reward, match_details };
}
const lines = (matching: number, min: number) => ({ reward: matching >= min ? 1 : 0, match_details: { matching_lines: matching, min_matches: min, passed: matching >= min } });

describe("the verify response", () => {
  test("echoes the verifier and adds match_details, in NeMo Gym's order", async () => {
    const verifier = { type: "regex", pattern_id: "dash", verify_regex: ["^- .+"], verify_min_matches: 1 };
    const answer = await verify(verifier, [assistantMessage("- one")]);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "verifier", "match_details"]);
    assert.deepEqual(body.verifier, verifier);
    assert.match(answer.text, /"reward":1\.0,"verifier":/);
  });

  test("the text is every output_text of every message, joined without separator; reasoning is ignored", async () => {
    const output = [{ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "- thought\n- thought" }] }, assistantMessage("- a\n- b", "\n- c"), assistantMessage("- d")];
    const answer = await verify({ type: "regex", verify_regex: ["^- .+"], verify_min_matches: 4 }, output);
    assert.deepEqual(answer.json<Record<string, unknown>>().match_details, { matching_lines: 3, min_matches: 4, passed: false }, "'- c' and '- d' are one line");
  });
});

describe("regex and inline_prose", () => {
  test("counts lines on which any pattern matches, each line once", async () => {
    assert.deepEqual(await score({ type: "regex", verify_regex: ["^- ", "item"], verify_min_matches: 2 }, "- item\n- other\nno"), lines(2, 2));
    assert.deepEqual(await score({ type: "inline_prose", verify_regex: ["^- "], verify_min_matches: 3 }, "- a\n- b"), lines(2, 3));
  });

  test("verify_min_matches defaults to 1; no patterns match nothing", async () => {
    assert.deepEqual(await score({ type: "regex", verify_regex: ["x"] }, "x"), lines(1, 1));
    assert.deepEqual(await score({ type: "regex" }, "x"), lines(0, 1));
    assert.deepEqual(await score({ type: "regex", verify_regex: [], verify_min_matches: 0 }, "x"), lines(0, 0));
  });

  test("patterns are Python's: ^ and $ per line, Unicode \\d and \\w, literal {", async () => {
    assert.deepEqual(await score({ type: "regex", verify_regex: [String.raw`^\d+\. \w+$`], verify_min_matches: 3 }, "1. Zoë\n٢. Ωmega\n3. two words\r\n4. end\r"), lines(2, 3));
    assert.deepEqual(await score({ type: "regex", verify_regex: ["^{.+}$"] }, "{a}"), lines(1, 1));
  });

  test("an invalid pattern is NeMo Gym's 500 (re.error), even when no line needs it", async () => {
    const answer = await verify({ type: "regex", verify_regex: ["^- ", "("] }, [assistantMessage("- a")]);
    assert.equal(answer.status, 500);
    assert.match(answer.text, /missing \), unterminated subpattern/);
  });
});

describe("string_match", () => {
  const citation = { type: "string_match", patterns: [String.raw`\[web:\d+\]`], expected_markers: ["[web:1]", "[web:2]"] };

  test("all expected markers present and no unexpected ones → 1", async () => {
    assert.deepEqual(await score(citation, "Deep [web:1]. Deeper [web:2][web:1]."), { reward: 1, match_details: { expected: ["[web:1]", "[web:2]"], missing: [], spurious: [], passed: true } });
  });

  test("a missing marker, or a pattern match that is not a marker, → 0", async () => {
    assert.deepEqual(await score(citation, "Deep [web:1]."), { reward: 0, match_details: { expected: ["[web:1]", "[web:2]"], missing: ["[web:2]"], spurious: [], passed: false } });
    assert.deepEqual(await score(citation, "[web:1] [web:2] [web:3] [web:3]"), { reward: 0, match_details: { expected: ["[web:1]", "[web:2]"], missing: [], spurious: ["[web:3]", "[web:3]"], passed: false } });
  });

  test("without patterns only the markers are checked", async () => {
    assert.deepEqual(await score({ type: "string_match", expected_markers: ["[4]"] }, "See [4] and [5]."), { reward: 1, match_details: { expected: ["[4]"], missing: [], spurious: [], passed: true } });
  });
});

describe("errors", () => {
  test("an unknown verifier type is NeMo Gym's 500 NotImplementedError, naming the type", async () => {
    const answer = await verify({ type: "table" }, [assistantMessage("x")]);
    assert.equal(answer.status, 500);
    assert.equal(answer.json<string>(), `NotImplementedError("Verifier type must be 'regex' or 'string_match', got 'table'")`);
  });

  test("a row without a verifier object is a 422 naming the field", async () => {
    const answer = await env.post("/verify", { responses_create_params: params, response: responseWith([assistantMessage("x")]) });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /verifier/);
  });
});

describe("data", () => {
  test("the example rows are valid run requests with a regex or string_match verifier", () => {
    for (const file of ["example.jsonl", "ds2_freeform_formatting_example.jsonl", "ds3_citation_format_example.jsonl"]) {
      const rows = readRows(join(dataDir, file));
      assertRowsAreRunRequests(rows);
      for (const row of rows) assert.ok(["regex", "string_match"].includes(row.verifier.type), file);
    }
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 6 });
  });
});
