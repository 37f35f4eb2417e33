// ruler's verify, rule by rule (fastify inject; values from NeMo Gym's Python): case-insensitive substring matches,
// all-of for most subsets and any-of for qa_1 / qa_2, the reward repeated under the subset's own field, then the data.
// NeMo Gym's shared data has no ruler reference set: parity rests on these values and on a differential run against
// its Python verifier (see the README).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import ruler from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");
const SUBSETS = ["cwe", "fwe", "niah_multikey_1", "niah_multikey_2", "niah_multikey_3", "niah_multiquery", "niah_multivalue", "niah_single_1", "niah_single_2", "niah_single_3", "qa_1", "qa_2", "vt"];

let env: InjectedServer;
before(async () => {
  env = await injectServer(ruler);
});
after(() => env.close());

const post = (text: string, fields: Item) => env.post("/verify", { responses_create_params: { input: "q" }, response: responseWith([assistantMessage(text)]), length: 4096, ...fields });
async function reward(text: string, fields: Item) {
  const reply = await post(text, fields);
  assert.equal(reply.status, 200, reply.text);
  return reply.json<Item>().reward;
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order: the row's three, then one float field per subset, null but the row's", async () => {
    const reply = await post(" QKTRW and huyeb", { outputs: ["QKTRW", "MZLOP", "HUYEB"], subset: "vt" });
    const body = reply.json<Item>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "outputs", "length", "subset", ...SUBSETS]);
    assert.equal(body.vt, 0.6666666666666666);
    assert.ok(SUBSETS.filter((name) => name !== "vt").every((name) => body[name] === null));
    assert.match(reply.text, /"qa_2":null,"vt":0\.6666666666666666}$/);
    assert.match((await post("x", { outputs: ["x"], subset: "cwe" })).text, /"reward":1\.0,.*"cwe":1\.0,"fwe":null/);
  });

  test("a subset outside the 13 names is only the reward", async () => {
    const body = (await post("x", { outputs: ["x"], subset: "custom" })).json<Item>();
    assert.equal(body.reward, 1);
    assert.ok(SUBSETS.every((name) => body[name] === null));
  });

  test("outputs, length and subset are required; an empty outputs (NeMo Gym divides by zero) or a subset naming a response field is a 422", async () => {
    const missing = await env.post("/verify", { responses_create_params: { input: "q" }, response: responseWith([]), outputs: ["x"], subset: "vt" });
    assert.deepEqual(missing.json<Item>().detail[0].loc, ["body", "length"]);
    const empty = await post("x", { outputs: [], subset: "vt" });
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.json<Item>().detail[0].loc, ["body", "outputs"]);
    assert.deepEqual((await post("x", { outputs: ["x"], subset: "reward" })).json<Item>().detail[0].loc, ["body", "subset"]);
  });
});

describe("the match", () => {
  test("every subset but qa_1 / qa_2: the share of outputs found in the stripped prediction, case-insensitively", async () => {
    assert.equal(await reward(" QKTRW and huyeb", { outputs: ["QKTRW", "MZLOP", "HUYEB"], subset: "vt" }), 0.6666666666666666);
    assert.equal(await reward("lantern, PEBBLE", { outputs: ["Lantern", "pebble"], subset: "cwe" }), 1);
    assert.equal(await reward("", { outputs: ["x"], subset: "niah_single_1" }), 0);
  });

  test("qa_1 and qa_2: 1.0 when any output is found", async () => {
    assert.equal(await reward("into the black sea", { outputs: ["Black Sea", "the Euxine"], subset: "qa_1" }), 1);
    assert.equal(await reward("the North Sea", { outputs: ["Black Sea", "the Euxine"], subset: "qa_2" }), 0);
  });

  test("lower-casing is Python's: İ lowers to i + a combining dot, so it is not plain i", async () => {
    assert.equal(await reward("İstanbul", { outputs: ["istanbul"], subset: "qa_1" }), 0);
    assert.equal(await reward("İstanbul", { outputs: ["i̇stanbul"], subset: "qa_1" }), 1);
  });
});

describe("the data", () => {
  test("example rows are /run requests with outputs, a length and a subset", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok(Array.isArray(r.outputs) && Number.isInteger(r.length) && SUBSETS.includes(r.subset as string));
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
