// scripted_model in `heuristic` mode over real HTTP: which tools it calls with which arguments, turn by turn.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import scriptedModel from "../app.ts";
import { callsPerTurn, converse, fnTool, messageTextOf, schemaViolations, type Item } from "./helpers.ts";

let graph: InProcessGraph;
const client = http();
const responsesUrl = () => `${graph.url("policy_model")}/v1/responses`;
const respond = (body: unknown) => client.request(responsesUrl(), { method: "POST", json: body });

before(async () => (graph = await startServers({ policy_model: [scriptedModel, { mode: "heuristic" }] })));
after(async () => {
  await graph.close();
  await client.close();
});

const getWeather = fnTool("get_weather", { city: { type: "string", description: "" } });
const incrementCounter = fnTool("increment_counter", { count: { type: "integer", description: "" } });
const getCounterValue = fnTool("get_counter_value", {});
const getSynonymValue = fnTool("get_synonym_value", { synonym: { type: "string" } });
const extractSynonymValues = fnTool("extract_synonym_values", { synonym_values: { type: "array", items: { type: "integer" } } });

const weather = (_: string, args: { city: string }) => ({ city: args.city, weather_description: `The weather in ${args.city} is cold.` });
const synonymValue = (word: string) => [...word].reduce((sum, c) => sum + c.codePointAt(0)!, 0);

/** The `city` argument of each get_weather call the first turn makes for this user text. */
async function citiesFor(text: string): Promise<string[]> {
  const answer = await respond({ input: [{ role: "user", content: text }], tools: [getWeather] });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<any>().output.map((call: Item) => JSON.parse(call.arguments).city);
}

test("a weather-style tool with one string parameter gets the capitalised place name, then the answer quotes the tool", async () => {
  const turns = await converse(client, responsesUrl(), { input: [{ role: "developer", content: "Be helpful." }, { role: "user", content: "what is it like in San Francisco today?" }], tools: [getWeather] }, weather);
  assert.deepEqual(callsPerTurn(turns), [['get_weather({"city":"San Francisco"})'], []]);
  const [answer] = turns[1]!.body.output;
  assert.equal(answer.type, "message");
  assert.equal(messageTextOf(answer), 'The tools returned: {"city":"San Francisco","weather_description":"The weather in San Francisco is cold."}');
});

test("string parameters prefer quoted strings, then capitalised names other than 'I' and sentence starts, then the last word", async () => {
  assert.deepEqual(await citiesFor('weather for "new york" and Boston'), ["new york"]);
  assert.deepEqual(await citiesFor("weather in 'los angeles' please"), ["los angeles"]);
  assert.deepEqual(await citiesFor("Tomorrow I fly from Paris to Rome"), ["Paris", "Rome"]);
  assert.deepEqual(await citiesFor("what's it like in sf"), ["sf"]);
});

test("apostrophes of contractions are not quotes", async () => {
  assert.deepEqual(await citiesFor("what's it like in Lisbon? it's late"), ["Lisbon"]);
  assert.deepEqual(await citiesFor("how's the weather, don't guess"), ["guess"]);
});

test("counter style: the one-integer tool is called once per number in the text, the zero-argument reader after them", async () => {
  let count = 3;
  const turns = await converse(client, responsesUrl(), { input: [{ role: "user", content: "add 1 then add 2 then get the count" }], tools: [getCounterValue, incrementCounter] }, (name, args) =>
    name === "increment_counter" ? ((count += args.count), { success: true }) : { count },
  );
  assert.deepEqual(callsPerTurn(turns), [['increment_counter({"count":1})', 'increment_counter({"count":2})', "get_counter_value({})"], []]);
  assert.equal(count, 6);
  assert.match(messageTextOf(turns[1]!.body.output[0]), /\{"count":6\}/);
});

test("gather then submit: a tool taking a list of integers is called in a second turn with the numbers the first calls returned", async () => {
  const turns = await converse(
    client,
    responsesUrl(),
    { input: [{ role: "user", content: 'Look up "Blazing" and "Warm", then extract their values.' }], tools: [getSynonymValue, extractSynonymValues] },
    (name, args) => (name === "get_synonym_value" ? { synonym_value: synonymValue(args.synonym) } : { success: true }),
  );
  assert.deepEqual(callsPerTurn(turns), [
    ['get_synonym_value({"synonym":"Blazing"})', 'get_synonym_value({"synonym":"Warm"})'],
    ['extract_synonym_values({"synonym_values":[711,407]})'],
    [],
  ]);
  assert.equal(turns[2]!.body.output[0].type, "message");
});

test("parallel_tool_calls: false gives exactly one call per turn, in the same order, and is echoed", async () => {
  const turns = await converse(
    client,
    responsesUrl(),
    { input: [{ role: "user", content: 'Look up "Blazing" and "Warm", then extract their values.' }], tools: [getSynonymValue, extractSynonymValues], parallel_tool_calls: false },
    (name, args) => (name === "get_synonym_value" ? { synonym_value: synonymValue(args.synonym) } : { success: true }),
  );
  assert.deepEqual(callsPerTurn(turns), [
    ['get_synonym_value({"synonym":"Blazing"})'],
    ['get_synonym_value({"synonym":"Warm"})'],
    ['extract_synonym_values({"synonym_values":[711,407]})'],
    [],
  ]);
  assert.ok(turns.every((turn) => turn.body.parallel_tool_calls === false));
});

test("without tools the answer is one plain assistant message", async () => {
  const answer = await respond({ input: "What is 6 times 7? Say 42." });
  assert.equal(answer.status, 200);
  const { output } = answer.json<any>();
  assert.equal(output.length, 1);
  assert.deepEqual(Object.keys(output[0]).sort(), ["content", "id", "role", "status", "type"]);
  assert.equal(output[0].type, "message");
  assert.equal(output[0].role, "assistant");
  assert.deepEqual(output[0].content[0].annotations, []);
  assert.equal(output[0].content[0].type, "output_text");
  assert.equal(messageTextOf(output[0]), "My answer is 42.");
});

test("the schema check these tests rely on rejects what it should", () => {
  assert.notDeepEqual(schemaViolations({ type: "integer", enum: [1, 2] }, 7), []);
  assert.notDeepEqual(schemaViolations({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, {}), []);
  assert.notDeepEqual(schemaViolations({ type: "array", items: { type: "object" } }, ["x"]), []);
  assert.notDeepEqual(schemaViolations({ type: "integer", minimum: 1 }, 0), []);
  assert.deepEqual(schemaViolations({ type: ["string", "null"] }, null), []);
});

test("every argument validates against its tool's JSON schema: enum, boolean, number, bounds, nested objects, arrays", async () => {
  const tools = [
    fnTool("set_level", { level: { type: "integer", enum: [1, 2, 3] } }),
    fnTool("set_unit", { unit: { type: "string", enum: ["celsius", "fahrenheit"] } }),
    fnTool("toggle", { enabled: { type: "boolean" } }),
    fnTool("set_price", { price: { type: "number", minimum: 0, maximum: 100 } }),
    fnTool("book_room", {
      city: { type: "string", maxLength: 5 },
      nights: { type: "integer", minimum: 1, maximum: 14 },
      smoking: { type: "boolean" },
      budget: { type: ["number", "null"] },
      kind: { type: "string", enum: ["single", "double"] },
      guest: { type: "object", properties: { name: { type: "string" }, age: { type: "integer", minimum: 18 } }, required: ["name", "age"], additionalProperties: false },
      extras: { type: "array", items: { type: "object", properties: { code: { type: "string" } }, required: ["code"] }, minItems: 1 },
      tags: { type: "array", items: { type: "string", enum: ["quiet", "view"] } },
    }),
    fnTool("pick", { choice: { anyOf: [{ type: "integer", enum: [10, 20] }, { type: "null" }] }, note: { type: "string" } }),
  ];
  const texts = ["set the level to 7 and the price to -3 for Amsterdam, 2.5 nights", "Please book something", "use fahrenheit, level 2 and price 250 in 'Rotterdam Centraal'"];
  for (const text of texts) {
    for (const parallel of [true, false]) {
      const turns = await converse(client, responsesUrl(), { input: text, tools, parallel_tool_calls: parallel }, () => ({ ok: true }), 20);
      const calls = turns.flatMap((turn) => turn.body.output.filter((item: Item) => item.type === "function_call"));
      assert.ok(calls.length >= 4, `only ${calls.length} calls for ${JSON.stringify(text)}`);
      for (const call of calls) {
        const tool = tools.find((t) => t.name === call.name)!;
        const problems = schemaViolations(tool.parameters, JSON.parse(call.arguments));
        assert.deepEqual(problems, [], `${call.name}(${call.arguments}) for ${JSON.stringify(text)}`);
      }
    }
  }
});

test("a string enum takes the value the user names when there is one", async () => {
  const answer = await respond({ input: "show it in fahrenheit", tools: [fnTool("set_unit", { unit: { type: "string", enum: ["celsius", "fahrenheit"] } })] });
  assert.deepEqual(answer.json<any>().output.map((call: Item) => JSON.parse(call.arguments)), [{ unit: "fahrenheit" }]);
});

test("two identical requests give identical ids and output", async () => {
  const request = { input: [{ role: "user", content: "add 4 and 5, then read the counter" }], tools: [incrementCounter, getCounterValue] };
  const [first, second] = await Promise.all([respond(request), respond(request)]);
  const a = first.json<any>();
  const b = second.json<any>();
  assert.equal(a.id, b.id);
  assert.deepEqual(a.output, b.output);
  assert.deepEqual(a.usage, b.usage);
  assert.equal(new Set(a.output.map((call: Item) => call.call_id)).size, 3, "call ids are distinct within a turn");
  const other = (await respond({ ...request, input: [{ role: "user", content: "add 4 and 6, then read the counter" }] })).json<any>();
  assert.notEqual(other.id, a.id);
});

test("the response names the policy honestly: model is scripted-heuristic, and the envelope echoes the request", async () => {
  const body = (await respond({ input: "hi", tools: [getWeather], temperature: 0.3, metadata: { task: "t1" }, instructions: "be brief" })).json<any>();
  assert.equal(body.model, "scripted-heuristic");
  assert.equal(body.object, "response");
  assert.equal(body.temperature, 0.3);
  assert.deepEqual(body.metadata, { task: "t1" });
  assert.equal(body.instructions, "be brief");
  assert.equal(body.tools[0].name, "get_weather");
  assert.ok(body.usage.input_tokens > 0 && body.usage.total_tokens === body.usage.input_tokens + body.usage.output_tokens);
});

test("NeMo Gym's strict request params: an unknown top-level key is a 422 naming it", async () => {
  const answer = await respond({ input: "hi", seed: 3 });
  assert.equal(answer.status, 422);
  assert.deepEqual(
    answer.json<any>().detail.map((d: Item) => [d.type, d.loc]),
    [["extra_forbidden", ["body", "seed"]]],
  );
});

test("a request under the /ng-rollout/<id> prefix is answered like an unprefixed one", async () => {
  const prefixed = await client.request(`${graph.url("policy_model")}/ng-rollout/r-17/v1/responses`, { method: "POST", json: { input: "hi" } });
  assert.equal(prefixed.status, 200);
  assert.deepEqual(prefixed.json<any>().output, (await respond({ input: "hi" })).json<any>().output);
});
