// gui_coordinate's verify, rule by rule (fastify inject): the first <point>(x, y)</point> of the assistant text in
// thousandths, the ground truth "x,y" as Python's float() reads it, the quadratic falloff within max_dist; then the
// example rows (pictures drawn with sharp) and the verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import sharp from "sharp";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import guiCoordinate from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const params = { input: [{ role: "user", content: "Point at the button." }] };

let env: InjectedServer;
before(async () => (env = await injectServer(guiCoordinate)));
after(() => env.close());

const verify = (output: Item[], fields: Item = {}) => env.post("/verify", { responses_create_params: params, expected_answer: "0.5,0.5", ...fields, response: responseWith(output) });
async function scored(text: string, fields: Item = {}) {
  const answer = await verify([assistantMessage(text)], fields);
  assert.equal(answer.status, 200, answer.text);
  const { reward, extracted_x, extracted_y, distance } = answer.json<Item>();
  return { reward, extracted_x, extracted_y, distance };
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order; max_dist and metadata are not echoed; floats are written as floats", async () => {
    const answer = await verify([assistantMessage("<point>(500, 1000)</point>")], { expected_answer: "0.5,1", max_dist: 0.2, metadata: { a: 1 } });
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "expected_answer", "extracted_x", "extracted_y", "distance"]);
    assert.match(answer.text, /"reward":1\.0,"expected_answer":"0\.5,1","extracted_x":0\.5,"extracted_y":1\.0,"distance":0\.0}$/);
  });

  test("no point: reward 0.0 and the extracted fields null", async () => {
    assert.deepEqual(await scored("It is in the middle."), { reward: 0, extracted_x: null, extracted_y: null, distance: null });
  });
});

describe("the reward", () => {
  test("(1 - distance / max_dist) ** 2 inside max_dist, as Python computes it", async () => {
    // Python: ((0.53 - 0.5) ** 2 + (0.54 - 0.5) ** 2) ** 0.5 == 0.05000000000000002; (1 - d / 0.15) ** 2 == 0.44444444444444425
    assert.deepEqual(await scored("<point>(530, 540)</point>"), { reward: 0.444444444444444, extracted_x: 0.53, extracted_y: 0.54, distance: 0.050000000000000044 });
  });

  test("distance >= max_dist scores 0, with the distance reported; max_dist is the row's", async () => {
    assert.deepEqual(await scored("<point>(650, 500)</point>"), { reward: 0, extracted_x: 0.65, extracted_y: 0.5, distance: 0.15000000000000002 });
    assert.ok(((await scored("<point>(650, 500)</point>", { max_dist: 0.3 })).reward as number) > 0);
    assert.equal((await scored("<point>(500, 500)</point>", { max_dist: 0 })).reward, 0, "max_dist 0: even an exact hit");
  });
});

describe("the point", () => {
  test("brackets and spaces are optional; the first point counts", async () => {
    for (const text of ["<point>[(500,500)]</point>", "<point> [ ( 500 , 500 ) ] </point>", "<point>(500, 500)</point> <point>(0, 0)</point>"]) assert.equal((await scored(text)).reward, 1, text);
  });

  test("decimals, signs and a missing parenthesis do not match", async () => {
    for (const text of ["<point>(0.5, 0.5)</point>", "<point>(-5, 500)</point>", "<point>500, 500</point>"]) assert.equal((await scored(text)).extracted_x, null, text);
  });

  test("the text is every assistant message's text parts joined by newlines; other roles are not read", async () => {
    assert.equal((await verify([assistantMessage("<point>(500,"), assistantMessage("500)</point>")])).json<Item>().reward, 1, "\\s matches the joining newline");
    assert.equal((await verify([{ type: "message", role: "user", content: [{ type: "input_text", text: "<point>(500, 500)</point>" }] }])).json<Item>().distance, null);
  });
});

describe("the ground truth", () => {
  test("two numbers as Python's float() reads them: spaces, signs, exponents, underscores", async () => {
    assert.equal((await scored("<point>(500, 500)</point>", { expected_answer: " 5e-1 , 0.5_0 " })).reward, 1);
  });

  test("not two numbers: reward 0 and nothing extracted, even with a point", async () => {
    for (const expected_answer of ["0.5", "0.5,0.5,0.1", "x,0.5", ""]) assert.deepEqual(await scored("<point>(500, 500)</point>", { expected_answer }), { reward: 0, extracted_x: null, extracted_y: null, distance: null }, expected_answer);
  });

  test("nan or inf coordinates are a 422 (NeMo Gym scores them, then cannot write the answer: its 500)", async () => {
    const answer = await verify([assistantMessage("<point>(500, 500)</point>")], { expected_answer: "nan,0.5" });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "expected_answer"]);
  });

  test("expected_answer is required and must be a string; max_dist a number", async () => {
    const missing = await env.post("/verify", { responses_create_params: params, response: responseWith([]) });
    assert.deepEqual([missing.status, missing.json<any>().detail[0].loc], [422, ["body", "expected_answer"]]);
    assert.equal((await verify([], { expected_answer: 0.5 })).status, 422);
    assert.equal((await verify([], { max_dist: "far" })).status, 422);
  });
});

describe("the data", () => {
  test("example rows are /run requests whose expected point is the target circle's centre in the picture", async () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assertRowsAreRunRequests(rows);
    for (const r of rows) {
      const url = (r.responses_create_params as any).input[0].content[0].image_url as string;
      const { data, info } = await sharp(Buffer.from(url.split(",")[1]!, "base64")).raw().toBuffer({ resolveWithObject: true });
      const [fx, fy] = (r.expected_answer as string).split(",").map(Number);
      const offset = (Math.round(fy! * info.height) * info.width + Math.round(fx! * info.width)) * info.channels;
      assert.notDeepEqual([...data.subarray(offset, offset + 3)], [255, 255, 255], "the expected point is on a circle");
    }
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
