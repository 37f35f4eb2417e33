// xlam_fc's verify (through fastify inject): the greedy call matching with Python's ==, every extra field, the argument
// decoding quirks NeMo Gym has (invalid JSON → {}, double-encoded strings decoded twice, non-object arguments),
// and the authored data and verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, functionCallItem, type InjectedServer, injectServer, type Item, readRows, responseWith } from "../../../src/testing/index.ts";
import xlam from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const rows = readRows(join(dataDir, "example.jsonl"));

let env: InjectedServer;
before(async () => (env = await injectServer(xlam, {}, { instanceName: "xlam_fc" })));
after(() => env.close());

const functionCall = (name: string, args: unknown, id = `${name}_${JSON.stringify(args)}`) => functionCallItem(name, args, `call_${id}`);
const toolOutput = (id: string): Item => ({ type: "function_call_output", call_id: id, output: '{"detail":"Not Found"}' });
const params = { input: [{ role: "user", content: "question" }] };

const verify = (expectedAnswers: unknown, output: Item[]) =>
  env.post("/verify", { responses_create_params: params, response: responseWith(output), ...(expectedAnswers === undefined ? {} : { expected_answers: expectedAnswers }) });
const score = async (expectedAnswers: unknown, output: Item[]) => {
  const answer = await verify(expectedAnswers, output);
  assert.equal(answer.status, 200, answer.text);
  const { reward, num_expected, num_predicted, num_correct } = answer.json<Record<string, number>>();
  return { reward, num_expected, num_predicted, num_correct };
};
const counts = (reward: number, num_expected: number, num_predicted: number, num_correct: number) => ({ reward, num_expected, num_predicted, num_correct });

const weather = (city: string) => ({ name: "get_weather", arguments: { city } });

describe("the verify response", () => {
  test("has NeMo Gym's fields in order, with the predicted calls' arguments decoded", async () => {
    const answer = await verify([weather("Paris")], [assistantMessage("\n\n"), functionCall("get_weather", '{"city": "Paris", "units": 1.5}')]);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "num_expected", "num_predicted", "num_correct", "predicted_calls"]);
    assert.deepEqual(body.predicted_calls, [{ name: "get_weather", arguments: { city: "Paris", units: 1.5 } }]);
    assert.match(answer.text, /"reward":1\.0,"num_expected":1,"num_predicted":1,"num_correct":1,/);
  });

  test("expected_answers and other row fields are not echoed", async () => {
    const answer = await env.post("/verify", { id: 7, responses_create_params: params, response: responseWith([]), expected_answers: [] });
    const body = answer.json<Record<string, unknown>>();
    assert.equal("expected_answers" in body, false);
    assert.equal("id" in body, false);
  });
});

describe("matching (NeMo Gym's test cases)", () => {
  test("one exact call, several exact calls in any order", async () => {
    assert.deepEqual(await score([weather("Paris")], [functionCall("get_weather", { city: "Paris" })]), counts(1, 1, 1, 1));
    assert.deepEqual(await score([weather("Paris"), weather("Rome")], [functionCall("get_weather", { city: "Rome" }), functionCall("get_weather", { city: "Paris" })]), counts(1, 2, 2, 2));
  });

  test("a partial match, no match, wrong arguments, no calls at all", async () => {
    assert.deepEqual(await score([weather("Paris"), weather("Rome")], [functionCall("get_weather", { city: "Paris" }), functionCall("get_weather", { city: "Oslo" })]), counts(0, 2, 2, 1));
    assert.deepEqual(await score([weather("Paris")], [functionCall("get_time", { city: "Paris" })]), counts(0, 1, 1, 0));
    assert.deepEqual(await score([weather("Paris")], [functionCall("get_weather", { city: "paris" })]), counts(0, 1, 1, 0));
    assert.deepEqual(await score([weather("Paris")], [assistantMessage("It is sunny.")]), counts(0, 1, 0, 0));
  });

  test("extra predicted argument keys are ignored; missing expected keys are not", async () => {
    assert.deepEqual(await score([weather("Paris")], [functionCall("get_weather", { city: "Paris", units: "metric" })]), counts(1, 1, 1, 1));
    assert.deepEqual(await score([{ name: "f", arguments: { a: 1, b: 2 } }], [functionCall("f", { a: 1 })]), counts(0, 1, 1, 0));
  });

  test("no expected calls: 1 only when the model made none", async () => {
    assert.deepEqual(await score([], []), counts(1, 0, 0, 0));
    assert.deepEqual(await score(undefined, [assistantMessage("no tool needed")]), counts(1, 0, 0, 0), "expected_answers defaults to []");
    assert.deepEqual(await score([], [functionCall("f", {})]), counts(0, 0, 1, 0));
  });

  test("extra calls and missing calls both score 0, with the counts saying which", async () => {
    assert.deepEqual(await score([weather("Paris")], [functionCall("get_weather", { city: "Paris" }), functionCall("get_weather", { city: "Paris" }, "again")]), counts(0, 1, 2, 1));
    assert.deepEqual(await score([weather("Paris"), weather("Rome")], [functionCall("get_weather", { city: "Rome" })]), counts(0, 2, 1, 1));
  });

  test("every call of every turn counts; tool outputs and messages do not", async () => {
    const output = [functionCall("get_weather", { city: "Paris" }, "1"), toolOutput("call_1"), assistantMessage("Let me also check Rome."), functionCall("get_weather", { city: "Rome" }, "2"), toolOutput("call_2"), assistantMessage("Done.")];
    assert.deepEqual(await score([weather("Paris"), weather("Rome")], output), counts(1, 2, 2, 2));
  });

  test("matching is greedy in expected order: a loose expectation can take the call a later one needed", async () => {
    const loose = { name: "f", arguments: {} };
    const strict = { name: "f", arguments: { a: 1 } };
    assert.deepEqual(await score([loose, strict], [functionCall("f", { a: 1 }, "1"), functionCall("f", { a: 2 }, "2")]), counts(0, 2, 2, 1));
    assert.deepEqual(await score([strict, loose], [functionCall("f", { a: 1 }, "1"), functionCall("f", { a: 2 }, "2")]), counts(1, 2, 2, 2));
  });
});

describe("values compare with Python's ==", () => {
  test("int and float are equal, and so are bool and 1; a numeric string is not a number", async () => {
    assert.deepEqual(await score([{ name: "f", arguments: { n: 5 } }], [functionCall("f", '{"n": 5.0}')]), counts(1, 1, 1, 1));
    assert.deepEqual(await score([{ name: "f", arguments: { n: 1 } }], [functionCall("f", '{"n": true}')]), counts(1, 1, 1, 1));
    assert.deepEqual(await score([{ name: "f", arguments: { n: 14 } }], [functionCall("f", '{"n": "14"}')]), counts(0, 1, 1, 0));
    assert.deepEqual(await score([{ name: "f", arguments: { n: 0.1 } }], [functionCall("f", '{"n": 0.1000001}')]), counts(0, 1, 1, 0), "no float tolerance");
  });

  test("nested dicts ignore key order, lists do not", async () => {
    const expected = [{ name: "f", arguments: { filter: { tags: ["a", "b"], limit: 2 } } }];
    assert.deepEqual(await score(expected, [functionCall("f", '{"filter": {"limit": 2.0, "tags": ["a", "b"]}}')]), counts(1, 1, 1, 1));
    assert.deepEqual(await score(expected, [functionCall("f", '{"filter": {"limit": 2, "tags": ["b", "a"]}}')]), counts(0, 1, 1, 0));
    assert.deepEqual(await score(expected, [functionCall("f", '{"filter": {"limit": 2, "tags": ["a", "b"], "x": 1}}')]), counts(0, 1, 1, 0), "inside a value, extra keys count");
  });

  test("expected arguments written as a JSON string are decoded", async () => {
    assert.deepEqual(await score([{ name: "f", arguments: '{"a": 1}' }], [functionCall("f", { a: 1 })]), counts(1, 1, 1, 1));
    assert.deepEqual(await score([{ name: "f", arguments: null }], [functionCall("f", { a: 1 })]), counts(1, 1, 1, 1), "null arguments expect nothing");
  });
});

describe("argument decoding", () => {
  test("arguments that are not JSON become {} (reported as such) and match only an argument-free expectation", async () => {
    const answer = await verify([{ name: "f", arguments: { a: 1 } }], [functionCall("f", '{"a": 1')]);
    assert.deepEqual(answer.json<any>().predicted_calls, [{ name: "f", arguments: {} }]);
    assert.equal(answer.json<any>().reward, 0);
    assert.deepEqual(await score([{ name: "f", arguments: {} }], [functionCall("f", "not json")]), counts(1, 1, 1, 1));
    assert.deepEqual(await score([{ name: "f" }], [functionCall("f", "")]), counts(1, 1, 1, 1));
  });

  test("double-encoded arguments are decoded twice when matching (reported once-decoded)", async () => {
    const doubleEncoded = JSON.stringify(JSON.stringify({ a: 1 }));
    const answer = await verify([{ name: "f", arguments: { a: 1 } }], [functionCall("f", doubleEncoded)]);
    assert.deepEqual(answer.json<any>().predicted_calls, [{ name: "f", arguments: '{"a":1}' }]);
    assert.equal(answer.json<any>().reward, 1);
  });

  test("arguments that decode to a list or a number match nothing that has arguments", async () => {
    assert.deepEqual(await score([{ name: "f", arguments: { a: 1 } }], [functionCall("f", '["a"]')]), counts(0, 1, 1, 0));
    assert.deepEqual(await score([{ name: "f", arguments: {} }], [functionCall("f", "5")]), counts(1, 1, 1, 1));
  });

  test("NeMo Gym's 500s: triple-encoded non-objects, non-object expected arguments, NaN in the reported calls", async () => {
    const tripleEncoded = (value: unknown) => JSON.stringify(JSON.stringify(value));
    for (const [args, error] of [[tripleEncoded(["x", "a"]), "list indices must be integers"], [tripleEncoded("xay"), "string indices must be integers"], [tripleEncoded(5), "argument of type 'int' is not iterable"]] as const) {
      const answer = await verify([{ name: "f", arguments: { a: 1 } }], [functionCall("f", args)]);
      assert.equal(answer.status, 500, args);
      assert.match(answer.text, new RegExp(`TypeError.*${error}`));
    }
    assert.equal((await verify([{ name: "f", arguments: "[1]" }], [functionCall("f", {})])).status, 500, "a list has no .items()");
    assert.equal((await verify([{ name: "f", arguments: { a: 1 } }], [functionCall("f", '{"a": NaN}')])).status, 500, "NaN is not JSON compliant");
  });

  test("expected_answers must be a list of objects (422)", async () => {
    for (const bad of [null, "x", [1], { name: "f" }]) {
      const answer = await verify(bad, []);
      assert.equal(answer.status, 422, JSON.stringify(bad));
      assert.equal(answer.json<any>().detail[0].loc[1], "expected_answers");
    }
  });
});

describe("data", () => {
  test("the example rows are 5 valid /run requests whose expected answers score 1", async () => {
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) {
      const output = row.expected_answers.map((answer: any, i: number) => functionCall(answer.name, answer.arguments, String(i)));
      const answer = await env.post("/verify", { ...row, response: responseWith(output) });
      assert.equal(answer.json<any>().reward, 1, `row ${row.id}`);
    }
  });

  test("every verifier case scores its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { kinds: ["full_reward", "zero_reward", "malformed"] });
  });
});
