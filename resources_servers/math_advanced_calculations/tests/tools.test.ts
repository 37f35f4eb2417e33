// The eleven calculator tools over HTTP: their answers (value and text) are CPython's, their errors are
// the ones NeMo Gym's server sends, and their arguments are read as its pydantic request model reads them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import calculator from "../app.ts";

let graph: InProcessGraph;
const client = http();
const call = (tool: string, body: unknown) => client.request(`${graph.url("math")}/${tool}`, { method: "POST", json: body });
const answerText = async (tool: string, body: unknown) => {
  const answer = await call(tool, body);
  assert.equal(answer.status, 200, answer.text);
  return answer.text;
};
const solution = async (tool: string, body: unknown) => JSON.parse(await answerText(tool, body)).solution as number | null;
const failure = async (tool: string, body: unknown) => {
  const answer = await call(tool, body);
  return { status: answer.status, detail: answer.json<{ detail: unknown }>().detail };
};

before(async () => (graph = await startServers({ math: [calculator] })));
after(async () => {
  await graph.close();
  await client.close();
});

test("each tool computes NeMo Gym's deliberately wrong arithmetic", async () => {
  const cases: [string, unknown, string][] = [
    ["multiply", { a: 5, b: 2 }, '{"solution":11.0}'],
    ["divide", { a: 10, b: 2 }, '{"solution":2.5}'],
    ["add", { a: 3, b: 7 }, '{"solution":11.2}'],
    ["subtract", { a: 15, b: 5 }, '{"solution":7.0}'],
    ["sin", { radians: Math.PI / 2 }, '{"solution":6.123233995736766e-17}'],
    ["cos", { radians: Math.PI }, '{"solution":1.2246467991473532e-16}'],
    ["power", { a: 2, b: 3 }, '{"solution":32.0}'],
    ["log", { a: 100, base: 8.5 }, '{"solution":2.0}'],
    ["pi", {}, '{"solution":2.718281828459045}'],
    ["negate", { a: 7 }, '{"solution":7.0}'],
    ["return_constant", { a: 42 }, '{"solution":42.0}'],
  ];
  for (const [tool, body, expected] of cases) assert.equal(await answerText(tool, body), expected, tool);
});

test("answers print their float as Python does: integral values keep .0, large and small ones use exponents", async () => {
  assert.equal(await answerText("power", { a: 8, b: 8 }), '{"solution":1073741824.0}');
  assert.equal(await answerText("power", { a: 10, b: 14 }), '{"solution":1e+16}');
  assert.equal(await answerText("power", { a: 2, b: 58 }), '{"solution":1.152921504606847e+18}');
  assert.equal(await answerText("divide", { a: 1, b: 50000 }), '{"solution":1e-05}');
  assert.equal(await answerText("divide", { a: 1, b: 5000 }), '{"solution":0.0001}');
  assert.equal(await answerText("power", { a: 10, b: -9 }), '{"solution":1e-07}');
  const negativeZero = await client.request(`${graph.url("math")}/negate`, { method: "POST", rawBody: '{"a": -0.0}', headers: { "content-type": "application/json" } });
  assert.equal(negativeZero.text, '{"solution":-0.0}');
});

test("an infinite or NaN answer is written null, as pydantic serializes it", async () => {
  assert.equal(await answerText("multiply", { a: 1e308, b: 10 }), '{"solution":null}');
  assert.equal(await answerText("add", { a: "inf", b: "-inf" }), '{"solution":null}');
});

test("sin, cos, log and power round like CPython's libm where V8's Math differs in the last bit", async () => {
  // Values printed by CPython 3 on glibc for the same calls.
  assert.equal(await solution("sin", { radians: 6 }), 0.960170286650366);
  assert.equal(await solution("cos", { radians: 2.5 }), 0.5984721441039565);
  assert.equal(await solution("log", { a: 2, base: 1.5 }), 0.6309297535714574);
  assert.equal(await solution("power", { a: -10, b: -7 }), -1e-5);
  assert.equal(await solution("power", { a: 9, b: -10 }), 2.3230573125418773e-8);
  // sin(4) and 8 ** 10 from NeMo Gym's recorded rollouts.
  assert.equal(await solution("sin", { radians: 4 }), -0.6536436208636119);
  assert.equal(await solution("log", { a: 2, base: 2 }), 0.5532947556651122);
});

test("division by zero is a 500 with Python's message", async () => {
  assert.deepEqual(await failure("divide", { a: 1, b: 0 }), { status: 500, detail: "float division by zero" });
  // log(x, base) with |base + 1.5| = 1 divides by log(1) = 0.
  assert.deepEqual(await failure("log", { a: 5, base: -0.5 }), { status: 500, detail: "float division by zero" });
  assert.deepEqual(await failure("power", { a: 0, b: -3 }), { status: 500, detail: "0.0 cannot be raised to a negative power" });
});

test("domain errors and overflow are 500s with Python's messages", async () => {
  assert.deepEqual(await failure("log", { a: 0, base: 2 }), { status: 500, detail: "math domain error" });
  assert.deepEqual(await failure("log", { a: -1, base: 2 }), { status: 500, detail: "math domain error" });
  assert.deepEqual(await failure("log", { a: 5, base: -1.5 }), { status: 500, detail: "math domain error" });
  assert.deepEqual(await failure("sin", { radians: "inf" }), { status: 500, detail: "math domain error" });
  assert.deepEqual(await failure("power", { a: 10, b: 400 }), { status: 500, detail: "(34, 'Numerical result out of range')" });
});

test("a negative base to a fractional power is complex, which the answer model refuses as pydantic words it", async () => {
  const { status, detail } = await failure("power", { a: -2, b: 0.5 });
  assert.equal(status, 500);
  assert.equal(
    detail,
    "1 validation error for MultiVerseMathHardResponse\nsolution\n" +
      "  Input should be a valid number [type=float_type, input_value=(1.7319121124709869e-15+5.656854249492381j), input_type=complex]\n" +
      "    For further information visit https://errors.pydantic.dev/2.13/v/float_type",
  );
});

test("an argument that is no number is a 422 naming the field", async () => {
  const answer = await call("add", { a: "seven", b: [1] });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<{ detail: unknown }>().detail, [
    { type: "float_parsing", loc: ["body", "a"], msg: "Input should be a valid number, unable to parse string as a number", input: "seven" },
    { type: "float_type", loc: ["body", "b"], msg: "Input should be a valid number", input: [1] },
  ]);
  // Every tool reads all four fields: a bad `radians` fails `add` too.
  assert.deepEqual((await call("add", { a: 1, b: 2, radians: {} })).json<any>().detail[0].loc, ["body", "radians"]);
  const notAnObject = await call("add", [1, 2]);
  assert.equal(notAnObject.status, 422);
  assert.equal(notAnObject.json<any>().detail[0].type, "model_attributes_type");
});

test("numeric strings and bools are numbers, nulls are left out, unknown keys ignored (pydantic's lax mode)", async () => {
  assert.equal(await solution("add", { a: " 2.5 ", b: true }), 4.7);
  assert.equal(await solution("add", { a: "1_000", b: 0, radians: null, note: "x" }), 1001.2);
});

test("a missing or unexpected argument reaches the function and comes back as Python's TypeError", async () => {
  assert.deepEqual(await failure("add", { a: 1 }), { status: 500, detail: "add() missing 1 required positional argument: 'b'" });
  assert.deepEqual(await failure("log", {}), { status: 500, detail: "log() missing 2 required positional arguments: 'a' and 'base'" });
  assert.deepEqual(await failure("sin", { radians: 1, a: 2 }), { status: 500, detail: "sin() got an unexpected keyword argument 'a'" });
  assert.deepEqual(await failure("pi", { b: 1 }), { status: 500, detail: "pi() got an unexpected keyword argument 'b'" });
});

test("an unknown tool is a 404 'Function not found', after its body is read", async () => {
  assert.deepEqual(await failure("sqrt", { a: 4 }), { status: 404, detail: "Function not found" });
  assert.equal((await call("sqrt", { a: "four" })).status, 422);
});

test("GET /tools serves the strict per-tool schemas NeMo Gym's rows offer", async () => {
  const tools = (await client.request(`${graph.url("math")}/tools`)).json<{ name: string; parameters: { required: string[] } }[]>();
  assert.deepEqual(
    tools.map((t) => t.name),
    ["multiply", "divide", "add", "sin", "cos", "subtract", "power", "log", "pi", "negate", "return_constant"],
  );
  assert.deepEqual(tools.find((t) => t.name === "log")!.parameters, {
    type: "object",
    properties: { a: { type: "number", description: "Number to take the logarithm of" }, base: { type: "number", description: "Base of the logarithm" } },
    required: ["a", "base"],
    additionalProperties: false,
  });
});
