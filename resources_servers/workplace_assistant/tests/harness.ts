// What the workplace_assistant tests share: a server over loopback HTTP, sessions, and verify requests.
import { join } from "node:path";
import { http, type InProcessGraph, readRows, startServers } from "../../../src/testing/index.ts";
import workplace from "../app.ts";

export const EXAMPLE_ROWS = readRows(join(import.meta.dirname, "../data/example.jsonl"));

export interface Harness {
  graph: InProcessGraph;
  url: string;
  post(path: string, json: unknown, cookies?: Record<string, string>): Promise<{ status: number; text: string; json<T = any>(): T; cookies: Record<string, string> }>;
  /** A seeded session's cookies. */
  seed(): Promise<Record<string, string>>;
  /** A tool call on a session: `{ status, output }` (output undefined unless 200). */
  call(cookies: Record<string, string>, tool: string, args: unknown): Promise<{ status: number; output: any; text: string }>;
  /** POST /verify for `row` with these function calls in the response; the reward (or the failed answer). */
  verify(row: Record<string, unknown>, calls: { name: string; arguments: unknown }[], cookies?: Record<string, string>): Promise<{ status: number; reward: number; body: any }>;
  close(): Promise<void>;
}

export function responseWith(calls: { name: string; arguments: unknown }[], text = "Done.") {
  const output: Record<string, unknown>[] = calls.map((call, i) => ({
    type: "function_call",
    id: `fc_${i}`,
    call_id: `call_${i}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    status: "completed",
  }));
  output.push({ type: "message", id: "msg", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
  return { id: "resp", created_at: 1, model: "m", object: "response", output, parallel_tool_calls: false, tool_choice: "auto", tools: [] };
}

export async function startWorkplace(fields: Record<string, unknown> = {}): Promise<Harness> {
  const graph = await startServers({ workplace: [workplace, fields] });
  const client = http();
  const url = graph.url("workplace");
  const post: Harness["post"] = (path, json, cookies) => client.request(`${url}${path}`, { method: "POST", json, cookies }) as any;
  return {
    graph,
    url,
    post,
    seed: async () => (await post("/seed_session", EXAMPLE_ROWS[0])).cookies,
    async call(cookies, tool, args) {
      const answer = await post(`/${tool}`, args, cookies);
      return { status: answer.status, output: answer.status === 200 ? answer.json<{ output: unknown }>().output : undefined, text: answer.text };
    },
    async verify(row, calls, cookies) {
      const answer = await post("/verify", { ...row, response: responseWith(calls) }, cookies);
      const body = answer.json<any>();
      return { status: answer.status, reward: answer.status === 200 ? body.reward : Number.NaN, body };
    },
    async close() {
      await graph.close();
      await client.close();
    },
  };
}

/** A function call as the ground truth writes it (arguments as a JSON string). */
export const action = (name: string, args: Record<string, unknown>) => ({ name, arguments: JSON.stringify(args) });
