// circle_count's verify, rule by rule (fastify inject), on a picture drawn here with sharp: the first \boxed{digits}
// of the output text is the answer, the row's circles of the target colour are the truth; then the example rows and
// the verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, functionCallItem, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import { circlesPng, imageDataUrl } from "../../../src/testing/images.ts";
import circleCount from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const CIRCLES = [
  { x: 40, y: 40, radius: 20, color: "red" },
  { x: 120, y: 40, radius: 20, color: "blue" },
  { x: 40, y: 120, radius: 20, color: "red" },
  { x: 120, y: 120, radius: 20, color: "red" },
];

let env: InjectedServer;
let row: Item;
before(async () => {
  env = await injectServer(circleCount);
  const png = await circlesPng(160, 160, CIRCLES.map((c) => ({ ...c, fill: c.color })));
  row = { responses_create_params: { input: [{ role: "user", content: [{ type: "input_image", image_url: imageDataUrl(png) }, { type: "input_text", text: "How many red circles are in the image?" }] }] }, circles: CIRCLES, target_color: "red" };
});
after(() => env.close());

const verify = (output: Item[], fields: Item = {}) => env.post("/verify", { ...row, ...fields, response: responseWith(output) });
async function scored(text: string, fields: Item = {}) {
  const answer = await verify([assistantMessage(text)], fields);
  assert.equal(answer.status, 200, answer.text);
  const { reward, predicted_count, expected_count, correct } = answer.json<Item>();
  return { reward, predicted_count, expected_count, correct };
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order (circles and target_color are not echoed)", async () => {
    const answer = await verify([assistantMessage(String.raw`\boxed{3}`)]);
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "predicted_count", "expected_count", "correct"]);
    assert.match(answer.text, /"reward":1\.0,"predicted_count":3,"expected_count":3,"correct":true}$/);
  });

  test("no boxed number: predicted_count null, reward 0.0, the expected count still reported", async () => {
    assert.deepEqual(await scored("three"), { reward: 0, predicted_count: null, expected_count: 3, correct: false });
  });
});

describe("the answer", () => {
  test("the first \\boxed{digits} is the answer, not the last", async () => {
    assert.deepEqual(await scored(String.raw`\boxed{2}, no wait: \boxed{3}`), { reward: 0, predicted_count: 2, expected_count: 3, correct: false });
    assert.equal((await scored(String.raw`\boxed{three} then \boxed{3}`)).reward, 1, "a box without digits only is skipped");
  });

  test("digits only: spaces, signs and decimals inside the box do not match", async () => {
    for (const text of [String.raw`\boxed{ 3 }`, String.raw`\boxed{+3}`, String.raw`\boxed{3.0}`]) assert.equal((await scored(text)).predicted_count, null, text);
  });

  test("leading zeros and other scripts' digits are read as Python's int() reads them", async () => {
    assert.equal((await scored(String.raw`\boxed{003}`)).reward, 1);
    assert.deepEqual(await scored(String.raw`\boxed{٣}`), { reward: 1, predicted_count: 3, expected_count: 3, correct: true });
  });

  test("the output text is every output_text part of every message, joined; a function call's arguments are not text", async () => {
    const answer = await verify([assistantMessage("\\boxed{", "3}"), functionCallItem("count", { text: "\\boxed{1}" })]);
    assert.equal(answer.json<Item>().reward, 1);
    assert.equal((await verify([functionCallItem("count", { text: "\\boxed{3}" })])).json<Item>().predicted_count, null);
  });
});

describe("the row", () => {
  test("expected_count counts circles whose colour equals target_color exactly", async () => {
    assert.equal((await scored(String.raw`\boxed{1}`, { target_color: "blue" })).reward, 1);
    assert.deepEqual(await scored(String.raw`\boxed{0}`, { target_color: "Red" }), { reward: 1, predicted_count: 0, expected_count: 0, correct: true });
    assert.equal((await scored(String.raw`\boxed{0}`, { circles: [] })).reward, 1, "no circles: the count is 0");
  });

  test("a circle without a colour is a 422 naming it (NeMo Gym's KeyError)", async () => {
    const answer = await verify([assistantMessage(String.raw`\boxed{3}`)], { circles: [...CIRCLES, { x: 1 }] });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "circles", 4, "color"]);
  });

  test("circles must be a list of objects and target_color a string", async () => {
    assert.equal((await verify([], { circles: "red" })).status, 422);
    assert.equal((await verify([], { target_color: null })).status, 422);
  });
});

describe("the data", () => {
  test("example rows are /run requests with an image, and their target colour appears", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok((r.circles as Item[]).some((c) => c.color === r.target_color));
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
