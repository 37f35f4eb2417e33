// circle_click's /click and verify, rule by rule (fastify inject), on rows whose picture is drawn here with sharp:
// the first click decides, Python's int() reads its x/y, the first circle of the target colour is the one that
// counts, the radius is inclusive; then the example rows, their tools and the verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import sharp from "sharp";
import { assertRowToolsMatchServer, assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, functionCallItem, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import { circlesPng, imageDataUrl } from "../../../src/testing/images.ts";
import circleClick from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const CIRCLES = [
  { x: 60, y: 60, radius: 30, color: "red" },
  { x: 150, y: 140, radius: 25, color: "blue" },
  { x: 150, y: 40, radius: 20, color: "blue" },
];

let env: InjectedServer;
let row: Item;
before(async () => {
  env = await injectServer(circleClick);
  const png = await circlesPng(200, 200, CIRCLES.map((c) => ({ ...c, fill: c.color })));
  row = {
    responses_create_params: { input: [{ role: "user", content: [{ type: "input_image", image_url: imageDataUrl(png) }, { type: "input_text", text: "Click on the blue circle." }] }] },
    circles: CIRCLES,
    target_color: "blue",
  };
});
after(() => env.close());

const verify = (output: Item[], fields: Item = {}) => env.post("/verify", { ...row, ...fields, response: responseWith(output) });
const click = (args: unknown) => functionCallItem("click", args);
async function scored(output: Item[], fields: Item = {}) {
  const answer = await verify(output, fields);
  assert.equal(answer.status, 200, answer.text);
  const { reward, clicked_x, clicked_y, hit } = answer.json<Item>();
  return { reward, clicked_x, clicked_y, hit };
}

test("the drawn picture has the target's colour at its stated centre (what the model sees agrees with the row)", async () => {
  const png = Buffer.from((row.responses_create_params as any).input[0].content[0].image_url.split(",")[1], "base64");
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
  assert.deepEqual(at(150, 140), [0, 0, 255]);
  assert.deepEqual(at(60, 60), [255, 0, 0]);
  assert.deepEqual(at(5, 5), [255, 255, 255]);
});

describe("the verify response", () => {
  test("has NeMo Gym's fields in order (the row's circles and target_color are not echoed)", async () => {
    const answer = await verify([click({ x: 150, y: 140 })]);
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "clicked_x", "clicked_y", "hit"]);
    assert.match(answer.text, /"reward":1\.0,"clicked_x":150,"clicked_y":140,"hit":true}$/);
  });

  test("no click: clicked_x / clicked_y null, hit false, reward 0.0", async () => {
    const answer = await verify([assistantMessage("The blue circle is at (150, 140).")]);
    assert.match(answer.text, /"reward":0\.0,"clicked_x":null,"clicked_y":null,"hit":false}$/);
  });
});

describe("the click", () => {
  test("a click inside the first target-coloured circle's radius hits; the edge counts (distance <= radius)", async () => {
    assert.deepEqual(await scored([click({ x: 150, y: 140 })]), { reward: 1, clicked_x: 150, clicked_y: 140, hit: true });
    assert.equal((await scored([click({ x: 175, y: 140 })])).hit, true, "exactly on the radius");
    assert.equal((await scored([click({ x: 176, y: 140 })])).hit, false);
  });

  test("only the first circle of the target colour counts: a click on a later one of that colour misses", async () => {
    assert.deepEqual(await scored([click({ x: 150, y: 40 })]), { reward: 0, clicked_x: 150, clicked_y: 40, hit: false });
  });

  test("a click on a circle of another colour misses", async () => {
    assert.equal((await scored([click({ x: 60, y: 60 })])).reward, 0);
  });

  test("only the first click counts, even when it cannot be read", async () => {
    assert.equal((await scored([click({ x: 60, y: 60 }), click({ x: 150, y: 140 })])).reward, 0);
    assert.deepEqual(await scored([click("not json"), click({ x: 150, y: 140 })]), { reward: 0, clicked_x: null, clicked_y: null, hit: false });
  });

  test("calls of other tools are skipped", async () => {
    assert.equal((await scored([functionCallItem("zoom", { x: 1 }), click({ x: 150, y: 140 })])).reward, 1);
  });

  test("x and y are read with Python's int(): floats truncate, numeric strings parse, bools are 0/1", async () => {
    assert.deepEqual(await scored([click({ x: 150.9, y: "140" })]), { reward: 1, clicked_x: 150, clicked_y: 140, hit: true });
    assert.deepEqual(await scored([click({ x: " +150 ", y: "1_40" })]), { reward: 1, clicked_x: 150, clicked_y: 140, hit: true });
    assert.deepEqual(await scored([click({ x: true, y: false })]), { reward: 0, clicked_x: 1, clicked_y: 0, hit: false });
  });

  test("arguments Python cannot read give no click: a list, a float string, null, a missing key, bad JSON, not an object", async () => {
    for (const args of [{ x: [150], y: 140 }, { x: "150.0", y: 140 }, { x: null, y: 140 }, { x: 150 }, "{x: 150}", "[150, 140]", '"150"']) {
      assert.deepEqual(await scored([click(args)]), { reward: 0, clicked_x: null, clicked_y: null, hit: false }, JSON.stringify(args));
    }
  });

  test("Infinity, which Python's json reads, makes int() overflow: NeMo Gym's 500, never a score", async () => {
    assert.equal((await verify([click('{"x": Infinity, "y": 1}')])).status, 500);
  });
});

describe("the row", () => {
  test("no circle of the target colour: nothing to hit", async () => {
    assert.equal((await scored([click({ x: 150, y: 140 })], { target_color: "green" })).reward, 0);
    assert.equal((await scored([click({ x: 150, y: 140 })], { circles: [], target_color: "blue" })).reward, 0);
  });

  test("a circle without a colour, or the target circle without x / radius, is a 422 naming it (NeMo Gym's KeyError)", async () => {
    const noColor = await verify([click({ x: 150, y: 140 })], { circles: [{ x: 1, y: 1, radius: 1 }] });
    assert.equal(noColor.status, 422);
    assert.deepEqual(noColor.json<any>().detail[0].loc, ["body", "circles", 0, "color"]);
    const noRadius = await verify([click({ x: 150, y: 140 })], { circles: [{ x: 150, y: 140, color: "blue" }] });
    assert.deepEqual(noRadius.json<any>().detail[0].loc, ["body", "circles", 0, "radius"]);
    const textX = await verify([click({ x: 150, y: 140 })], { circles: [{ x: "150", y: 140, radius: 3, color: "blue" }] });
    assert.deepEqual([textX.status, textX.json<any>().detail[0].loc], [422, ["body", "circles", 0, "x"]]);
  });

  test("without a click the circles are never read (NeMo Gym reads them only for a click)", async () => {
    assert.equal((await verify([assistantMessage("no")], { circles: [{}] })).status, 200);
  });

  test("circles must be a list of objects and target_color a string", async () => {
    assert.equal((await verify([], { circles: [3] })).status, 422);
    assert.equal((await verify([], { target_color: 3 })).status, 422);
  });
});

describe("/click", () => {
  test("echoes x and y, whatever they are", async () => {
    assert.deepEqual((await env.post("/click", { x: 3, y: "4" })).json(), { x: 3, y: "4" });
    assert.deepEqual((await env.post("/click", { x: null, y: [1] })).json(), { x: null, y: [1] });
  });

  test("x and y are required", async () => {
    const answer = await env.post("/click", { x: 3 });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "y"]);
  });
});

describe("the data", () => {
  test("example rows are /run requests that offer the served click tool, with a target circle each", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    assertRowToolsMatchServer(rows, circleClick.toolDefinitions);
    for (const r of rows) assert.ok((r.circles as Item[]).some((c) => c.color === r.target_color));
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 6 }));
});
