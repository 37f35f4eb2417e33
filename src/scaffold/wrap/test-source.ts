// The generated `tests/app.test.ts` of a wrapped domain module: the environment over real HTTP — its tools and
// example rows, seeding, the verifier cases scored by the module's own reward, sessions kept apart.
import { libraryImport } from "../common.ts";
import type { DomainModule } from "./analyze.ts";

export interface TestSourceOptions {
  name: string;
  /** Folder the test file is written to. */
  testDir: string;
}

export function testSource(domain: DomainModule, { name, testDir }: TestSourceOptions): string {
  const lib = (module: string) => libraryImport(testDir, module);
  const toolNames = domain.tools.map((t) => t.toolName);
  const subject = domain.style === "class" ? domain.className! : `${domain.stateFactory!.name}()`;
  const withRequired = domain.tools.find((t) => t.parameters.fields.some((f) => !f.optional));
  const argumentless = domain.tools.find((t) => t.parameters.fields.length === 0);
  const seedRequired = domain.seed.fields.some((f) => !f.optional);

  const optional: string[] = [];
  if (withRequired) {
    const field = withRequired.parameters.fields.find((f) => !f.optional)!;
    optional.push(`
test("a call missing a required argument is a 422 naming it", async () => {
  const { cookies } = await post("/seed_session", rows[0]);
  const answer = await post("/${withRequired.toolName}", {}, cookies);
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json().detail[0].loc, ["body", ${JSON.stringify(field.name)}]);
});`);
  }
  if (seedRequired && argumentless) {
    optional.push(`
test("a tool called before /seed_session is refused with what to do instead", async () => {
  const answer = await post("/${argumentless.toolName}", {});
  assert.equal(answer.status, 400);
  assert.match(answer.json().detail, /seed_session/);
});`);
  }

  return `// Tests of the environment \`gym env wrap\` generated around ${subject}: the served tools and example rows, and the
// verifier cases (data/verifier_cases.jsonl) scored over HTTP by the module's own reward.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, http, readRows, startServers, type InProcessGraph } from "${lib("src/testing/index.ts")}";
import environment from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const cases = readRows(join(import.meta.dirname, "../data/verifier_cases.jsonl"));
let graph: InProcessGraph;
const client = http();
type Cookies = Record<string, string>;
const url = (path: string) => graph.url("${name}") + path;

before(async () => (graph = await startServers({ ${name}: [environment] })));
after(async () => {
  await graph.close();
  await client.close();
});

/** POSTs to the environment; the answer's cookies are merged into \`cookies\` so one session carries on. */
async function post(path: string, json: unknown, cookies: Cookies = {}) {
  const answer = await client.request(url(path), { method: "POST", json, cookies });
  return { status: answer.status, text: answer.text, json: <T = any>() => answer.json<T>(), cookies: { ...cookies, ...answer.cookies } };
}

interface Call {
  name: string;
  arguments: Record<string, unknown> | string;
  output?: string;
}

/** A Responses API response: each call with its output, then the final assistant message. */
function responseOf(calls: Call[], text: string) {
  const output: Record<string, unknown>[] = calls.flatMap((call, i) => [
    { type: "function_call", call_id: \`call_\${i}\`, name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments), id: \`fc_\${i}\`, status: "completed" },
    { type: "function_call_output", call_id: \`call_\${i}\`, output: call.output ?? "{}" },
  ]);
  output.push({ type: "message", id: "msg_final", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
  return { id: "resp", created_at: 1, model: "test", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] };
}

/** Seeds a session with \`row\`, runs \`calls\` through the tools, and verifies: the reward and each call's status. */
async function play(row: Record<string, any>, calls: Call[], text = "") {
  let { cookies } = await post("/seed_session", row);
  const made: Call[] = [];
  const statuses: number[] = [];
  for (const call of calls) {
    const args = typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments;
    const answer = await post(\`/\${call.name}\`, args, cookies);
    cookies = answer.cookies;
    statuses.push(answer.status);
    made.push({ ...call, output: answer.text });
  }
  const verified = await post("/verify", { ...row, response: responseOf(made, text) }, cookies);
  assert.equal(verified.status, 200, verified.text);
  return { reward: verified.json<{ reward: number }>().reward, statuses };
}

test("GET /tools serves the module's tools, and the 5 example rows offer exactly them", async () => {
  const served = (await client.request(url("/tools"), { method: "GET" })).json<{ name: string }[]>();
  assert.deepEqual(served, environment.toolDefinitions);
  assert.deepEqual(served.map((t) => t.name), ${JSON.stringify(toolNames)});
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, environment.toolDefinitions);
  for (const row of rows) assert.deepEqual(row.responses_create_params.tools, environment.toolDefinitions);
});

test("every example row seeds a session", async () => {
  for (const row of rows) assert.equal((await post("/seed_session", row)).status, 200);
});

for (const [index, verifierCase] of cases.entries()) {
  test(\`verifier case \${index + 1} (\${verifierCase.case}) scores \${verifierCase.expected_reward}\`, async () => {
    const { reward, statuses } = await play(verifierCase.row, verifierCase.tool_calls, verifierCase.output_text);
    assert.ok(statuses.every((status) => status < 500), \`no tool call may fail the server: \${statuses}\`);
    if (verifierCase.case === "malformed") assert.ok(statuses.some((status) => status >= 400), "a malformed case has a call the server refuses");
    assert.equal(reward, verifierCase.expected_reward);
  });
}

test("sessions played at the same time keep their own state", { skip: cases.length < 2 && "needs two verifier cases" }, async () => {
  const played = await Promise.all(cases.map((c) => play(c.row, c.tool_calls, c.output_text)));
  assert.deepEqual(played.map((p) => p.reward), cases.map((c) => c.expected_reward));
});
${optional.join("\n")}
`;
}
