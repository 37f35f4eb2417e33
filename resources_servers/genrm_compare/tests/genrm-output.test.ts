// The GenRM judge's answer, rule by rule as NeMo Gym's parse_genrm_output reads it (expected values checked against
// NeMo Gym's function), and what of a compared Response the judge is shown.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { answerShownToJudge, GenRMOutputParseError, parseGenRMOutput, reasoningAndAnswer, topLevelJsonObjects } from "../genrm-output.ts";

const parse = (text: string) => {
  const { score1, score2, ranking } = parseGenRMOutput(text, 3.0, 3.5);
  return [score1, score2, ranking];
};

describe("parseGenRMOutput", () => {
  test("a ```json fence with the three scores", () => {
    assert.deepEqual(parse('Reasoning...\n```json\n{"score_1": 4, "score_2": 2, "ranking": 2}\n```'), [4, 2, 2]);
  });

  test("the fence tag is matched case-insensitively, with any whitespace around the object", () => {
    assert.deepEqual(parse('```JSON   {"score_1": 1, "score_2": 5, "ranking": 6}   ```'), [1, 5, 6]);
  });

  test("a fenced verdict wins over a later unfenced one", () => {
    assert.deepEqual(parse('```json\n{"score_1": 2, "score_2": 3, "ranking": 4}\n```\nActually {"score_1": 5, "score_2": 1, "ranking": 1}'), [2, 3, 4]);
  });

  test("without a fence, the last usable object of several verdicts counts", () => {
    assert.deepEqual(parse('x {"score_1": 1} y {"score_1": 5, "score_2": 4, "ranking": 3}'), [5, 4, 3]);
  });

  test("a missing key takes its default (score 3.0, ranking 3.5)", () => {
    assert.deepEqual(parse('{"score_2": 1}'), [3, 1, 3.5]);
    assert.deepEqual(parse('{"ranking": 5}'), [3, 3, 5]);
  });

  test("numbers as strings, with whitespace, and booleans are read as Python's float() reads them", () => {
    assert.deepEqual(parse('{"score_1": true, "ranking": "  2.5 "}'), [1, 3, 2.5]);
  });

  test("an object whose score is null or a list is skipped; an earlier usable one is not kept over a later one", () => {
    // The first object fails float(None); the second is usable.
    assert.deepEqual(parse('{"score_1": "4", "score_2": null, "ranking": 1} {"ranking": 5}'), [3, 3, 5]);
    assert.throws(() => parse('{"score_1": [1]}'), GenRMOutputParseError);
  });

  test("an object inside an array is found by the brace scan", () => {
    assert.deepEqual(parse('[{"score_1": 4}]'), [4, 3, 3.5]);
  });

  test("a rubric answer's verdict under `overall`", () => {
    assert.deepEqual(parse('```json {"rubric_evaluations": [{"c": 1}], "overall": {"score_1": 2, "score_2": 2, "ranking": 4}} ```'), [2, 2, 4]);
  });

  test("braces inside JSON strings do not end an object", () => {
    assert.deepEqual(parse('{"a": "}{", "score_2": 1}'), [3, 1, 3.5]);
    assert.deepEqual(topLevelJsonObjects('a {"x": "\\"}"} b {"y": {"z": 1}}'), ['{"x": "\\"}"}', '{"y": {"z": 1}}']);
  });

  test("NaN and Infinity are JSON to Python", () => {
    const [s1, s2] = parse('{"score_1": NaN, "score_2": Infinity}');
    assert.ok(Number.isNaN(s1));
    assert.equal(s2, Infinity);
  });

  test("no JSON at all, invalid JSON, an object without a score key, a lowercase key, an array: a parse error", () => {
    for (const text of ["Response 1 is better.", '{"score_1": 4,', '{"verdict": "A"}', '{"Score_1": 4}', ""]) {
      assert.throws(() => parse(text), GenRMOutputParseError, text);
    }
  });

  test("the error message previews the first 200 characters", () => {
    assert.throws(() => parse("x".repeat(300)), (error: Error) => error.message === `No parseable JSON found in GenRM output: ${"x".repeat(200)}...`);
  });
});

describe("what the judge is shown of a response", () => {
  const response = {
    output: [
      { type: "reasoning", summary: [{ type: "summary_text", text: "think " }, { type: "summary_text", text: "more" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello" }, { type: "refusal", refusal: "no" }, { type: "output_text", text: " world" }] },
      { type: "function_call", name: "f", arguments: "{}" },
    ],
  };

  test("the reasoning summaries and the output_text parts, each joined", () => {
    assert.deepEqual(reasoningAndAnswer(response), { reasoning: "think more", answer: "Hello world" });
  });

  test("only the answer goes to the judge; an empty or blank one is shown as None", () => {
    assert.equal(answerShownToJudge(response), "Hello world");
    assert.equal(answerShownToJudge({ output: [] }), "None");
    assert.equal(answerShownToJudge({ output: [{ type: "message", content: [{ type: "output_text", text: "  \n" }] }] }), "None");
    assert.equal(answerShownToJudge(null), "None");
  });
});
