// What the archetypes of `gym env init` have in common: the shape of an archetype, dataset rows and verifier
// cases, and the generated test file around each archetype's own tests.
import type { FunctionToolDefinition } from "../../server/index.ts";
import { libraryImport, zodImport } from "../common.ts";

export type Row = Record<string, unknown> & { responses_create_params: Record<string, unknown> };

/** One line of `data/verifier_cases.jsonl`, the contract `gym env test` replays. */
export interface VerifierCase {
  case: "full_reward" | "zero_reward" | "malformed";
  row: Row;
  tool_calls: { name: string; arguments: Record<string, unknown> }[];
  output_text: string;
  expected_reward: number;
}

/** Where a file is generated: the environment's name and the folder the file lives in (for import paths). */
export interface SourceContext {
  name: string;
  /** Folder of the file being generated. */
  dir: string;
}

export interface Archetype {
  /** One line, for the config's `description`. */
  summary: string;
  /** NeMo Gym domain of the config. */
  domain: string;
  /** Paragraphs for the README: state, tools, verify. */
  readme: string;
  app(context: SourceContext): string;
  /** The five example rows; `tools` must be what the server serves (`GET /tools`). */
  exampleRows(tools: FunctionToolDefinition[]): Row[];
  verifierCases(rows: Row[]): VerifierCase[];
  /** The archetype's own `test(...)` blocks; they may use `post`, `play`, `responseOf`, `url`, `client`, `rows`, `environment`. */
  tests: string;
}

/** Import lines of a generated file: zod, then each library module with the names it imports. */
export function importLines(context: SourceContext, modules: [names: string, projectRelativeModule: string][]): string {
  return [`import { z } from "${zodImport(context.dir)}";`, ...modules.map(([names, module]) => `import ${names} from "${libraryImport(context.dir, module)}";`)].join("\n");
}

/** A row: a developer prompt, the user's task, the served tools, then the fields the environment reads. */
export function row(developer: string, user: string, tools: FunctionToolDefinition[], fields: Record<string, unknown>): Row {
  return {
    responses_create_params: {
      input: [
        { role: "developer", content: developer },
        { role: "user", content: user },
      ],
      tools,
    },
    ...fields,
  };
}

export const toJsonl = (values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n") + "\n";

/**
 * `tests/app.test.ts`: the environment over real HTTP, its own tests, then two checks every generated
 * environment carries: the example rows offer exactly the served tools, and every verifier case gives its reward.
 */
export function testSource(context: SourceContext, archetype: Archetype): string {
  const lib = (module: string) => libraryImport(context.dir, module);
  return `import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, http, readRows, startServers, type InProcessGraph } from "${lib("src/testing/index.ts")}";
import environment from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const cases = readRows(join(import.meta.dirname, "../data/verifier_cases.jsonl"));
let graph: InProcessGraph;
const client = http();
type Cookies = Record<string, string>;
const url = (path: string) => graph.url("${context.name}") + path;

before(async () => (graph = await startServers({ ${context.name}: [environment] })));
after(async () => {
  await graph.close();
  await client.close();
});

/** POSTs to the environment; the answer's cookies are merged into \`cookies\` so one session carries on. */
async function post(path: string, json: unknown, cookies: Cookies = {}) {
  const answer = await client.request(url(path), { method: "POST", json, cookies });
  return { status: answer.status, json: <T = any>() => answer.json<T>(), cookies: { ...cookies, ...answer.cookies } };
}

interface Call {
  name: string;
  arguments: Record<string, unknown>;
  output?: string;
}

/** A Responses API response: each call with its output, then the final assistant message. */
function responseOf(calls: Call[], text: string) {
  const output: Record<string, unknown>[] = calls.flatMap((call, i) => [
    { type: "function_call", call_id: \`call_\${i}\`, name: call.name, arguments: JSON.stringify(call.arguments), id: \`fc_\${i}\`, status: "completed" },
    { type: "function_call_output", call_id: \`call_\${i}\`, output: call.output ?? "{}" },
  ]);
  output.push({ type: "message", id: "msg_final", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
  return { id: "resp", created_at: 1, model: "test", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] };
}

/** Seeds a session with \`row\`, runs \`calls\` through the tools, and verifies; the verify answer. */
async function play(row: Record<string, any>, calls: Omit<Call, "output">[], text = "Done.") {
  let cookies = (await post("/seed_session", row)).cookies;
  const made: Call[] = [];
  for (const call of calls) {
    const answer = await client.request(url(\`/\${call.name}\`), { method: "POST", json: call.arguments, cookies });
    cookies = { ...cookies, ...answer.cookies };
    made.push({ ...call, output: answer.text });
  }
  const verified = await post("/verify", { ...row, response: responseOf(made, text) }, cookies);
  assert.equal(verified.status, 200, JSON.stringify(verified.json()));
  return verified.json<{ reward: number } & Record<string, unknown>>();
}
${archetype.tests}
test("the example data has 5 valid rows offering exactly the served tools", async () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, environment.toolDefinitions);
  const served = await client.request(url("/tools"), { method: "GET" });
  assert.deepEqual(served.json(), environment.toolDefinitions);
  for (const row of rows) assert.deepEqual(row.responses_create_params.tools, environment.toolDefinitions);
});

test("every verifier case gives its expected reward (the cases gym env test replays)", async () => {
  assert.deepEqual(new Set(cases.map((c) => c.case)), new Set(["full_reward", "zero_reward", "malformed"]));
  for (const { case: kind, row, tool_calls, output_text, expected_reward } of cases) {
    const verified = await play(row, tool_calls, output_text);
    assert.equal(verified.reward, expected_reward, \`\${kind}: \${JSON.stringify(tool_calls)}\`);
  }
});
`;
}
