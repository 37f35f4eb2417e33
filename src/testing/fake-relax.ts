// A Relax per-session model API over real HTTP (127.0.0.1, port 0), for tests of the gateway and of servers that
// bridge model calls to Relax: `/sessions/<id>/v1/responses` answers only `Bearer <id>`.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RelaxSessions {
  url: string;
  /** Calls per session, and calls refused because the token was not that session's. */
  calls: Map<string, number>;
  refused: number;
  close(): Promise<void>;
}

/** `/sessions/<id>/v1/responses`: answers only `Bearer <id>`; a tool call first, then the final answer. */
export async function startRelaxSessions(): Promise<RelaxSessions> {
  const relax: RelaxSessions = { url: "", calls: new Map(), refused: 0, close: async () => (server.closeAllConnections(), void (await new Promise((r) => server.close(r)))) };
  const server = createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    const session = /^\/sessions\/([^/]+)\/v1\/responses$/.exec(request.url ?? "")?.[1];
    // A session named hang-… models a generation that never finishes.
    if (session?.startsWith("hang-")) return void relax.calls.set(session, (relax.calls.get(session) ?? 0) + 1);
    if (!session || request.headers.authorization !== `Bearer ${session}`) {
      relax.refused++;
      response.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"token does not own this session"}}');
      return;
    }
    relax.calls.set(session, (relax.calls.get(session) ?? 0) + 1);
    const body = JSON.parse(text) as { input: { type?: string }[]; model: string };
    const toolAnswered = body.input.some((item) => item.type === "function_call_output");
    const output = toolAnswered
      ? [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "It is cold in Paris.", annotations: [] }] }]
      : [{ type: "function_call", id: "fc_1", call_id: `call_${session}`, name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" }];
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ id: `resp_${session}`, object: "response", created_at: 1, model: body.model, status: "completed", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  relax.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return relax;
}
