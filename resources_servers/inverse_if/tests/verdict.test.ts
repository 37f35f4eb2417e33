// inverse_if's verdict parsing rule by rule: the fenced JSON block, the bare JSON object, the keyword fallback over
// the last five lines, the default, and the odd answers (lowercase, several verdicts, broken JSON, extra whitespace).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { extractVerdict } from "../verdict.ts";

const verdict = (text: string) => extractVerdict(text).verdict;

describe("extractVerdict: a fenced JSON block", () => {
  test("```json and a bare ``` fence both count; the explanation comes with the verdict", () => {
    assert.deepEqual(extractVerdict('Output:\n```json\n{"result": "PASS", "explanation": "All met."}\n```'), { verdict: "PASS", explanation: "All met." });
    assert.deepEqual(extractVerdict('```\n{"result": "FAIL", "explanation": "No exclamation mark."}\n```'), { verdict: "FAIL", explanation: "No exclamation mark." });
  });

  test("the result is upper-cased and stripped: ' pass ' is PASS", () => {
    assert.deepEqual(extractVerdict('```json\n{"result": " pass "}\n```'), { verdict: "PASS", explanation: "" });
  });

  test("only the first fenced block is read; several blocks: the first decides", () => {
    assert.equal(verdict('```json\n{"result": "FAIL"}\n```\nOn second thought:\n```json\n{"result": "PASS"}\n```'), "FAIL");
  });

  test("a fenced block that is not valid JSON falls through to the bare-object rule", () => {
    // The trailing comma breaks json.loads; the bare object regex then finds the same flat object, also unparsable,
    // so the keyword fallback reads the last lines: the closing fence, "}" and the result line with PASS.
    assert.equal(verdict('```json\n{"result": "PASS",}\n```'), "PASS");
    assert.deepEqual(extractVerdict('```json\n{result: PASS}\n```\n{"result": "FAIL", "explanation": "x"}'), { verdict: "FAIL", explanation: "x" });
  });

  test("a fenced object whose result is neither PASS nor FAIL falls through", () => {
    assert.deepEqual(extractVerdict('```json\n{"result": "MAYBE"}\n```\nfinal: FAIL'), { verdict: "FAIL", explanation: "" });
    assert.equal(verdict('```json\n{"result": 1}\n```\nI would say pass'), "PASS", "a non-string result is skipped (Python's AttributeError is caught)");
  });

  test("a nested object inside the fence: the lazy match must reach the closing fence, so it takes the whole object", () => {
    assert.deepEqual(extractVerdict('```json\n{"result": "PASS", "explanation": "e", "detail": {"a": 1}}\n```'), { verdict: "PASS", explanation: "e" });
  });
});

describe("extractVerdict: a bare JSON object", () => {
  test("a flat object with a result anywhere in the text", () => {
    assert.deepEqual(extractVerdict('I checked.\n{"result": "PASS", "explanation": "Looks good."}\nThanks.'), { verdict: "PASS", explanation: "Looks good." });
  });

  test("the regex ignores case, and the parsed result is upper-cased", () => {
    assert.equal(verdict('{"result": "pass", "explanation": "ok"}'), "PASS");
    // The regex matches an upper-case key, but the parsed object has no "result": the keyword rule decides.
    assert.equal(verdict('{"RESULT": "PASS"}\n1\n2\n3\n4\n5'), "FAIL", "the verdict line is beyond the last five");
    assert.equal(verdict('{"RESULT": "PASS"}'), "PASS", "the keyword rule reads the same line");
  });

  test("the first matching object wins when there are several", () => {
    assert.equal(verdict('{"result": "FAIL"} then {"result": "PASS"}'), "FAIL");
  });

  test("whitespace around the colon is allowed", () => {
    assert.equal(verdict('{ "result"   :\n "PASS" }'), "PASS");
  });
});

describe("extractVerdict: keyword fallback and default", () => {
  test("the last five lines, last first: PASS before FAIL within a line", () => {
    assert.equal(verdict("Reasoning...\nVerdict: pass"), "PASS");
    assert.equal(verdict("Reasoning...\nVerdict: FAIL"), "FAIL");
    assert.equal(verdict("FAIL or PASS?"), "PASS", "PASS is looked for first in a line");
    assert.equal(verdict("PASS\nnot this one: FAIL"), "FAIL", "the last line is read first");
  });

  test("only the last five lines are read", () => {
    assert.equal(verdict("PASS\n1\n2\n3\n4\n5"), "FAIL");
    assert.equal(verdict("PASS\n1\n2\n3\n4"), "PASS");
  });

  test("words containing the keyword count (PASSWORD, FAILURE)", () => {
    assert.equal(verdict("the password was shown"), "PASS");
    assert.equal(verdict("a failure of formatting"), "FAIL");
  });

  test("nothing recognisable, or an empty answer, is FAIL (never an error)", () => {
    assert.deepEqual(extractVerdict("I cannot decide."), { verdict: "FAIL", explanation: "" });
    assert.deepEqual(extractVerdict(""), { verdict: "FAIL", explanation: "" });
    assert.deepEqual(extractVerdict("   \n\n  "), { verdict: "FAIL", explanation: "" });
  });
});

describe("extractVerdict: the explanation as parsed", () => {
  test("a non-string explanation is returned as is (verify refuses it, as NeMo Gym's str field does)", () => {
    assert.equal(typeof extractVerdict('{"result": "PASS", "explanation": 3}').explanation, "bigint");
  });
});
