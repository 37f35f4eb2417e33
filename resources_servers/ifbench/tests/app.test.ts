// ifbench's verify (through fastify inject): NeMo Gym's response fields, strict and loose scoring, binary and
// fraction grading, where the text comes from, the rows it cannot score (501), its 422s, and the authored data.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedServer, injectServer, readRows, responseWith } from "../../../src/testing/index.ts";
import ifbench, { looseResponseVariants } from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => (env = await injectServer(ifbench, {}, { instanceName: "ifbench" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "Write something." }] };
const row = (instruction_id_list: string[], kwargs: unknown[], extra: Record<string, unknown> = {}) => ({ id: 1, instruction_id_list, prompt: "Write something.", kwargs, ...extra });

const post = (body: Record<string, unknown>) => env.post("/verify", { responses_create_params: params, ...body });
async function verifyText(text: string, fields: Record<string, unknown>) {
  const answer = await post({ response: responseWith([assistantMessage(text)]), ...fields });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const verdicts = (body: Record<string, any>) => [body.reward, body.follow_instruction_list, body.reward_loose, body.follow_instruction_list_loose];

describe("the verify response", () => {
  test("has NeMo Gym's fields in order, echoes the row's fields but not its id, and writes rewards as floats", async () => {
    const fields = row(["count:numbers"], [{ N: 2, keyword: null }]);
    const answer = await post({ response: responseWith([assistantMessage("Use 1 and 2.")]), ...fields });
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "follow_all_instructions", "follow_instruction_list", "follow_all_instructions_loose",
      "follow_instruction_list_loose", "reward_loose", "kwargs", "instruction_id_list", "prompt", "grading_mode",
    ]);
    assert.deepEqual([body.kwargs, body.instruction_id_list, body.prompt, body.grading_mode], [[{ N: 2, keyword: null }], ["count:numbers"], "Write something.", "fraction"]);
    assert.match(answer.text, /"reward":1\.0,.*"reward_loose":1\.0,/);
  });
});

describe("strict and loose scoring", () => {
  test("count:numbers: exactly N digit runs", async () => {
    assert.deepEqual(verdicts(await verifyText("The values are 42 and 7.", row(["count:numbers"], [{ N: 2 }]))), [1, [true], 1, [true]]);
    assert.deepEqual(verdicts(await verifyText("There are no digits here at all.", row(["count:numbers"], [{ N: 2 }]))), [0, [false], 0, [false]]);
  });

  test("loose scoring passes when a variant does: here the text without its first line", async () => {
    const body = await verifyText("Reference values: 100 200 300\nThe answer is 42 and 7.", row(["count:numbers", "count:numbers"], [{ N: 2 }, { N: 99 }]));
    assert.deepEqual(verdicts(body), [0, [false, false], 0.5, [true, false]]);
    assert.equal(body.follow_all_instructions_loose, false);
  });

  test("the eight variants: the text, without *, without its first, last or both lines, and those without *", () => {
    const variants = looseResponseVariants("intro\n*body*\noutro");
    assert.deepEqual(variants, ["intro\n*body*\noutro", "intro\nbody\noutro", "*body*\noutro", "intro\n*body*", "*body*", "body\noutro", "intro\nbody", "body"]);
  });

  test("an empty (blank) response fails every instruction, even those this port cannot check", async () => {
    const body = await verifyText("   ", row(["count:numbers", "words:start_verb"], [{ N: 3 }, {}]));
    assert.deepEqual(verdicts(body), [0, [false, false], 0, [false, false]]);
  });
});

describe("grading", () => {
  const twoRules = row(["count:numbers", "format:no_whitespace"], [{ N: 1 }, {}]);

  test("fraction (the default): the share followed", async () => {
    const body = await verifyText("The answer is 42.", twoRules);
    assert.deepEqual([body.reward, body.follow_all_instructions, body.follow_instruction_list], [0.5, false, [true, false]]);
  });

  test("binary: 1 only when every instruction is followed", async () => {
    assert.equal((await verifyText("The answer is 42.", { ...twoRules, grading_mode: "binary" })).reward, 0);
    assert.equal((await verifyText("42", { ...twoRules, grading_mode: "binary" })).reward, 1);
  });

  test("no instructions: fraction gives 0, binary 1", async () => {
    assert.equal((await verifyText("x", row([], []))).reward, 0);
    assert.equal((await verifyText("x", row([], [], { grading_mode: "binary" }))).reward, 1);
  });

  test("ids and kwargs pair up as zip() pairs them: the extra ones are never checked", async () => {
    assert.deepEqual((await verifyText("42", row(["count:numbers", "words:start_verb"], [{ N: 1 }]))).follow_instruction_list, [true]);
  });
});

describe("an instruction that cannot be followed counts as not followed", () => {
  test("an unknown id, a kwarg its checker does not take, a missing keyword (drawn at random by the library)", async () => {
    const body = await verifyText("42", row(["totally:unknown_instruction", "count:numbers", "words:words_position", "count:numbers"], [{}, { N: 1, n: 2 }, {}, { N: 1 }]));
    assert.deepEqual(body.follow_instruction_list, [false, false, false, true]);
  });
});

describe("instructions this port cannot check", () => {
  test("words:start_verb is a 501 naming the instruction and NLTK's tagger: never a guessed verdict", async () => {
    const answer = await post({ response: responseWith([assistantMessage("Run 1 mile.")]), ...row(["count:numbers", "words:start_verb"], [{ N: 1 }, {}]) });
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /words:start_verb needs NLTK's averaged_perceptron_tagger_eng model \(nltk\.pos_tag\)/);
  });

  test("words:odd_even_syllables is a 501 naming syllapy", async () => {
    const answer = await post({ response: responseWith([assistantMessage("Hello there.")]), ...row(["words:odd_even_syllables"], [null]) });
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /words:odd_even_syllables needs syllapy's word dictionary/);
  });

  test("with a kwarg their build_description does not take they fail before any model is needed, so the row scores", async () => {
    assert.deepEqual((await verifyText("Run.", row(["words:start_verb"], [{ N: 2 }]))).follow_instruction_list, [false]);
  });
});

describe("the response text", () => {
  test("is the first content part of the last output item", async () => {
    const answer = await post({ response: responseWith([assistantMessage("no digits"), { ...assistantMessage("1"), id: "msg_2" }]), ...row(["count:numbers"], [{ N: 1 }]) });
    assert.equal(answer.json<{ reward: number }>().reward, 1);
  });

  test("is empty when the last item has no content (a function call): every instruction fails", async () => {
    const call = { type: "function_call", call_id: "c1", name: "f", arguments: "{}" };
    const answer = await post({ response: responseWith([assistantMessage("1"), call]), ...row(["count:numbers"], [{ N: 1 }]) });
    assert.deepEqual(answer.json<{ follow_instruction_list: boolean[] }>().follow_instruction_list, [false]);
  });

  test("a refusal as the last item's first part has no text: NeMo Gym's AttributeError (a 500)", async () => {
    const refusal = { ...assistantMessage(""), content: [{ type: "refusal", refusal: "I can't." }] };
    assert.equal((await post({ response: responseWith([refusal]), ...row(["count:numbers"], [{ N: 1 }]) })).status, 500);
  });
});

describe("request fields", () => {
  test("id, instruction_id_list, prompt and kwargs are required: a 422 naming the field", async () => {
    for (const field of ["id", "instruction_id_list", "prompt", "kwargs"]) {
      const { [field]: _dropped, ...rest } = row(["count:numbers"], [{ N: 1 }]) as Record<string, unknown>;
      const answer = await post({ response: responseWith([assistantMessage("1")]), ...rest });
      assert.equal(answer.status, 422, field);
      assert.match(answer.text, new RegExp(`"${field}"`));
    }
  });

  test("ids must be strings and grading_mode binary or fraction", async () => {
    assert.equal((await post({ response: responseWith([assistantMessage("1")]), ...row([5 as unknown as string], [{}]) })).status, 422);
    const answer = await post({ response: responseWith([assistantMessage("1")]), ...row(["count:numbers"], [{ N: 1 }], { grading_mode: "strict" }) });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /grading_mode/);
  });
});

describe("config", () => {
  test("num_processes must be a positive integer", async () => {
    await assert.rejects(injectServer(ifbench, { num_processes: 0 }, { instanceName: "ifbench" }), /num_processes/);
  });
});

describe("authored data", () => {
  test("example.jsonl rows are valid run requests with the verifier fields", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const example of rows) assert.equal(example.instruction_id_list.length, example.kwargs.length, `row ${example.id}`);
  });

  test("every verifier case gets its expected reward (or its 501)", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 10 });
  });
});
