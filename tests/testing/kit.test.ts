// The public test kit itself: the tool-drift rule's verdicts, row reading naming FILE:LINE, and a tool call answered
// the same through fastify inject as over real HTTP.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowToolsMatchServer, compareTools, http, injectServer, overHttp, readRowLines, readRows, startServers, toolDrift, type ToolDifference } from "../../src/testing/index.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";

const served = counter.toolDefinitions;
const [increment, read] = served;
const verdicts = (offered: unknown) => compareTools(offered, served).map(({ kind, drift, tool, path }: ToolDifference) => ({ kind, drift, tool, path }));

describe("the tool-drift rule", () => {
  test("the served tools, as served: no difference", () => {
    assert.deepEqual(compareTools(structuredClone(served), served), []);
  });

  test("object keys in any order and `required` in any order are equal", () => {
    const reordered = { strict: increment!.strict, parameters: { additionalProperties: false, required: ["count"], properties: increment!.parameters.properties, type: "object" }, description: increment!.description, name: increment!.name, type: "function" };
    assert.deepEqual(compareTools([reordered, read], served), []);
  });

  test("a changed description (the tool's or a field's) or title is allowed: reported, not drift", () => {
    const reworded = { ...increment, description: "Adds." };
    const fieldReworded = { ...increment, parameters: { ...increment!.parameters, properties: { count: { type: "integer", description: "By how much.", title: "Count" } } } };
    assert.deepEqual(verdicts([reworded, read]), [{ kind: "prose", drift: false, tool: "increment_counter", path: "responses_create_params.tools.0.description" }]);
    assert.deepEqual(verdicts([fieldReworded, read]), [{ kind: "prose", drift: false, tool: "increment_counter", path: "responses_create_params.tools.0.parameters.properties.count.description" }]);
    assert.deepEqual(toolDrift([reworded, read], served), []);
  });

  test("a changed strict is allowed: the model provider's setting, which the server never reads", () => {
    assert.deepEqual(verdicts([{ ...increment, strict: false }, read]), [{ kind: "prose", drift: false, tool: "increment_counter", path: "responses_create_params.tools.0.strict" }]);
  });

  test("a changed parameter is drift, at its first different field", () => {
    const retyped = { ...increment, parameters: { ...increment!.parameters, properties: { count: { type: "number", description: "How much to add." } } } };
    const extraField = { ...increment, parameters: { ...increment!.parameters, properties: { ...(increment!.parameters.properties as object), by: { type: "string" } } } };
    const optional = { ...increment, parameters: { ...increment!.parameters, required: [] } };
    assert.deepEqual(verdicts([retyped, read]), [{ kind: "parameters", drift: true, tool: "increment_counter", path: "responses_create_params.tools.0.parameters.properties.count.type" }]);
    assert.deepEqual(verdicts([extraField, read]), [{ kind: "parameters", drift: true, tool: "increment_counter", path: "responses_create_params.tools.0.parameters.properties.by" }]);
    assert.deepEqual(verdicts([optional, read]), [{ kind: "parameters", drift: true, tool: "increment_counter", path: "responses_create_params.tools.0.parameters.required" }]);
    assert.deepEqual(compareTools([retyped, read], served)[0]!.offered, "number");
    assert.deepEqual(compareTools([retyped, read], served)[0]!.served, "integer");
  });

  test("a served tool the row does not offer (a missing tool) is allowed", () => {
    assert.deepEqual(verdicts([increment]), [{ kind: "not_offered", drift: false, tool: "get_counter_value", path: "responses_create_params.tools" }]);
    assert.deepEqual(toolDrift([increment], served), []);
  });

  test("an offered tool the server does not serve (an extra tool) is drift; a provider's built-in tool is not compared", () => {
    const extra = { type: "function", name: "reset_counter", description: "", parameters: { type: "object", properties: {} }, strict: true };
    assert.deepEqual(verdicts([increment, read, extra, { type: "web_search" }]), [{ kind: "unknown_tool", drift: true, tool: "reset_counter", path: "responses_create_params.tools.2.name" }]);
  });

  test("tools that are not a list are drift", () => {
    assert.deepEqual(verdicts({ increment_counter: increment }), [{ kind: "not_a_list", drift: true, tool: "", path: "responses_create_params.tools" }]);
  });

  test("assertRowToolsMatchServer fails on drift, naming the row and the field, and passes prose-only rows", () => {
    const row = (tools: unknown[]) => ({ responses_create_params: { input: "x", tools } });
    assertRowToolsMatchServer([row([{ ...increment, description: "" }, read])], served);
    assert.throws(
      () => assertRowToolsMatchServer([row(served), row([{ ...read, name: "read_counter" }])], served),
      (error: Error) => error.message.includes("row 2 offers tools that differ from GET /tools") && error.message.includes("responses_create_params.tools.0.name: 'read_counter' is not served by GET /tools"),
    );
  });
});

describe("reading rows", () => {
  const dir = mkdtempSync(join(tmpdir(), "gym-kit-rows-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("every non-blank line is a row, with its line number", () => {
    const file = join(dir, "good.jsonl");
    writeFileSync(file, '{"a": 1}\n\n{"a": 2}\n');
    assert.deepEqual(readRows(file), [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(readRowLines(file).map((r) => r.lineNumber), [1, 3]);
  });

  test("a line that is not JSON fails naming FILE:LINE; so does one that is not an object", () => {
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, '{"a": 1}\n{"a": \n');
    assert.throws(() => readRows(file), (error: Error) => error.message.startsWith(`${file}:2: not valid JSON (`));
    writeFileSync(file, '{"a": 1}\n\n[1]\n');
    assert.throws(() => readRows(file), { message: `${file}:3: each line must be a JSON object` });
  });
});

describe("inject and HTTP", () => {
  test("a tool call in a seeded session gets the same answer through inject as over a socket", async () => {
    const injected = await injectServer(counter, {}, { instanceName: "counter" });
    const graph = await startServers({ counter: [counter] });
    const client = http();
    try {
      const answers = [];
      for (const server of [injected, overHttp(graph.url("counter"), client)]) {
        const session = server.session();
        const seeded = await session.post("/seed_session", { responses_create_params: { input: "x" }, initial_count: 3 });
        assert.deepEqual(Object.keys(seeded.cookies), ["StatefulCounterResourcesServer___counter"]);
        const incremented = await session.post("/increment_counter", { count: 2 });
        const value = await session.post("/get_counter_value", {});
        const refused = await session.post("/increment_counter", { count: "two" });
        answers.push([incremented.status, incremented.text, value.status, value.text, refused.status, refused.json(), String(value.headers["content-type"])]);
      }
      assert.deepEqual(answers[0], answers[1]);
      assert.deepEqual(answers[0]!.slice(2, 5), [200, '{"count":5}', 422]);
      assert.equal(injected.sessionCookieName, "StatefulCounterResourcesServer___counter");
    } finally {
      await injected.close();
      await graph.close();
      await client.close();
    }
  });

  test("through inject, a call without the session cookie is a new session: the injected server keeps no cookies itself", async () => {
    const injected = await injectServer(counter);
    try {
      await injected.session().post("/increment_counter", { count: 7 });
      assert.deepEqual((await injected.post("/get_counter_value", {})).json(), { count: 0 });
    } finally {
      await injected.close();
    }
  });
});
