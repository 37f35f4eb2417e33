// instruction_following's verify (through fastify inject): the response fields, binary and fraction grading, where the
// text comes from, the legacy top-level row format, the 422s and 500s NeMo Gym gives, and the authored data.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, type InjectedServer, injectServer, readRows, responseWith } from "../../../src/testing/index.ts";
import instructionFollowing from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => (env = await injectServer(instructionFollowing, {}, { instanceName: "instruction_following" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "Write something." }] };
const metadata = (instruction_id_list: unknown[], kwargs: unknown[], extra: Record<string, unknown> = {}) => ({ instruction_id_list, prompt: "Write something.", kwargs, ...extra });

const post = (body: Record<string, unknown>) => env.post("/verify", { id: 1, responses_create_params: params, ...body });
async function verify(body: Record<string, unknown>) {
  const answer = await post(body);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}
const verifyText = (text: string, verifierMetadata: Record<string, unknown>) => verify({ response: responseWith([assistantMessage(text)]), verifier_metadata: verifierMetadata });

const titleAndNoComma = metadata(["detectable_format:title", "punctuation:no_comma"], [{}, {}]);

describe("the verify response", () => {
  test("has NeMo Gym's fields in order and echoes verifier_metadata", async () => {
    const answer = await post({ response: responseWith([assistantMessage("<<T>>\n\nNo commas here.")]), verifier_metadata: titleAndNoComma });
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "follow_all_instructions", "follow_instruction_list", "verifier_metadata"]);
    assert.deepEqual(body.verifier_metadata, titleAndNoComma);
    assert.match(answer.text, /"reward":1\.0,"follow_all_instructions":true,"follow_instruction_list":\[true,true\]/);
  });
});

describe("grading", () => {
  test("binary (the default): 1 only when every instruction is followed", async () => {
    assert.deepEqual(await verifyText("<<T>>\n\nNo commas here.", titleAndNoComma).then((b) => [b.reward, b.follow_all_instructions, b.follow_instruction_list]), [1, true, [true, true]]);
    assert.deepEqual(await verifyText("<<T>>\n\nOne, two.", titleAndNoComma).then((b) => [b.reward, b.follow_all_instructions, b.follow_instruction_list]), [0, false, [true, false]]);
  });

  test("fraction: the share of instructions followed", async () => {
    const body = await verifyText("<<T>>\n\nOne, two.", { ...titleAndNoComma, grading_mode: "fraction" });
    assert.deepEqual([body.reward, body.follow_all_instructions, body.follow_instruction_list], [0.5, false, [true, false]]);
  });

  test("no instructions: binary gives 1, fraction 0", async () => {
    assert.equal((await verifyText("x", metadata([], []))).reward, 1);
    assert.equal((await verifyText("x", metadata([], [], { grading_mode: "fraction" }))).reward, 0);
  });

  test("another grading_mode is NeMo Gym's ValueError (a 500)", async () => {
    const answer = await post({ response: responseWith([assistantMessage("x")]), verifier_metadata: metadata([], [], { grading_mode: "strict" }) });
    assert.equal(answer.status, 500);
  });

  test("instruction ids and kwargs pair up as zip() does: extra ones are ignored", async () => {
    const body = await verifyText("<<T>>", metadata(["detectable_format:title", "punctuation:no_comma"], [{}]));
    assert.deepEqual(body.follow_instruction_list, [true]);
  });
});

describe("failures of one instruction count as not followed", () => {
  test("an unknown id (NeMo Gym's KeyError), an unexpected kwarg, a bad relation", async () => {
    const body = await verifyText("<<T>>", metadata(
      ["nope:nothing", "detectable_format:title", "length_constraints:number_words", "detectable_format:title"],
      [{}, { bogus: 1 }, { num_words: 1, relation: "about" }, null],
    ));
    assert.deepEqual(body.follow_instruction_list, [false, false, false, true]);
    assert.equal(body.reward, 0);
  });
});

describe("an instruction NeMo Gym checks but this port cannot", () => {
  test("is a 501 naming it, not a reward: the row is a typed failure", async () => {
    const answer = await post({ response: responseWith([assistantMessage("Hello there")]), verifier_metadata: metadata(["detectable_format:title", "language:response_language"], [{}, { language: "en" }]) });
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.text, /language:response_language need langdetect's language profiles/);
  });

  test("past the end of kwargs it is never checked (zip), so the row scores", async () => {
    const body = await verifyText("<<T>>", metadata(["detectable_format:title", "language:response_language"], [{}]));
    assert.deepEqual(body.follow_instruction_list, [true]);
  });
});

describe("the response text", () => {
  test("is the first content part of the last output item", async () => {
    const body = await verify({ response: responseWith([assistantMessage("<<T>>"), { ...assistantMessage("no title"), id: "msg_2" }]), verifier_metadata: metadata(["detectable_format:title"], [{}]) });
    assert.equal(body.reward, 0);
  });

  test("is empty when the last item has no content (a function call)", async () => {
    const call = { type: "function_call", call_id: "c1", name: "f", arguments: "{}" };
    const body = await verify({ response: responseWith([assistantMessage("<<T>>"), call]), verifier_metadata: metadata(["detectable_format:title", "punctuation:no_comma"], [{}, {}]) });
    assert.deepEqual(body.follow_instruction_list, [false, true]);
  });

  test("a refusal as the last item's first part has no text: NeMo Gym's AttributeError (a 500)", async () => {
    const refusal = { ...assistantMessage(""), content: [{ type: "refusal", refusal: "I can't." }] };
    const answer = await post({ response: responseWith([refusal]), verifier_metadata: metadata(["detectable_format:title"], [{}]) });
    assert.equal(answer.status, 500);
  });
});

describe("row formats", () => {
  test("legacy rows keep the verifier fields at the top level; they are migrated into verifier_metadata", async () => {
    const body = await verify({ response: responseWith([assistantMessage("<<T>>, yes")]), ...titleAndNoComma, grading_mode: "fraction" });
    assert.equal(body.reward, 0.5);
    assert.deepEqual(body.verifier_metadata, { ...titleAndNoComma, grading_mode: "fraction" });
    assert.equal("instruction_id_list" in body, false);
  });

  test("verifier_metadata wins over top-level fields", async () => {
    const body = await verify({ response: responseWith([assistantMessage("<<T>>, yes")]), instruction_id_list: ["punctuation:no_comma"], verifier_metadata: metadata(["detectable_format:title"], [{}]) });
    assert.deepEqual(body.follow_instruction_list, [true]);
    assert.deepEqual(body.verifier_metadata.instruction_id_list, ["detectable_format:title"]);
  });

  test("missing verifier fields are a 422 naming them", async () => {
    const answer = await post({ response: responseWith([assistantMessage("x")]), verifier_metadata: { prompt: "p" } });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /verifier_metadata is missing required fields: \['instruction_id_list', 'kwargs'\]/);
  });

  test("id is required and must be an integer", async () => {
    const answer = await env.post("/verify", { responses_create_params: params, response: responseWith([assistantMessage("x")]), verifier_metadata: titleAndNoComma });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /"id"/);
  });
});

describe("authored data", () => {
  test("example.jsonl rows are valid run requests with the verifier fields", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.ok(Array.isArray((row.verifier_metadata ?? row).instruction_id_list), `row ${row.id}`);
  });

  test("every verifier case gets its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 6 });
  });
});
