// An environment's tools over MCP (Streamable HTTP) at POST /mcp, bound to the caller's Gym session: the
// request's session cookie names the per-rollout state a tool call runs against, exactly as POST /<tool>
// does, so a change made over MCP is what /verify sees. The transport is stateless (no MCP session): each
// HTTP request gets its own MCP server whose tools are closed over that request's Gym session id.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PROJECT_ROOT } from "../config/index.ts";
import { stringifyWire } from "../protocol/wire-json.ts";
import { HttpError, RequestValidationError } from "../protocol/errors.ts";
import { laxValidate } from "../python/pydantic/index.ts";
import { exceptionRepr } from "../python/exception.ts";
import type { FunctionToolDefinition } from "./tool-schema.ts";
import type { RequestSignals } from "./request-abort.ts";

export interface McpTool extends FunctionToolDefinition {
  /** The zod schema POST /<tool> validates with; `parameters` is what GET /tools serves. */
  input: z.ZodType;
  /** The tool's own writer of its reply text, when it has one (the text is then what POST /<tool> answers). */
  formatOutput?: (output: any) => string;
}

export interface McpOptions {
  /** Announced to MCP clients as the server's name (the instance name). */
  serverName: string;
  /** `<ClassName>___<instance>`: names the server in its error logs (the cookie itself is the app's `sessionCookies`). */
  sessionCookieName: string;
  tools: McpTool[];
  /** Runs a tool with validated arguments against the state of a session (the same function the tool routes use). */
  runTool(name: string, args: unknown, sessionId: string, signal: AbortSignal): Promise<unknown>;
  /** The server's request signals: a tool call's fires when its caller disconnects or the server closes. */
  signals: RequestSignals;
}

let packageVersion: string | undefined;
const version = () => (packageVersion ??= JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version as string);

// The SDK loads at the first POST /mcp: most servers never see one, and it is a large part of a server's start-up.
let sdk: Promise<typeof import("@modelcontextprotocol/sdk/types.js") & typeof import("@modelcontextprotocol/sdk/server/mcp.js") & typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js")> | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([import("@modelcontextprotocol/sdk/types.js"), import("@modelcontextprotocol/sdk/server/mcp.js"), import("@modelcontextprotocol/sdk/server/streamableHttp.js")]).then(
    ([types, server, transport]) => ({ ...types, ...server, ...transport }),
  ));

export function registerMcp(app: FastifyInstance, options: McpOptions): void {
  // The base app's codec: the cookie re-set on every /mcp answer, as on every other route, under the graph's signing.
  const codec = app.sessionCookies;
  const byName = new Map(options.tools.map((t) => [t.name, t]));
  // The JSON Schemas GET /tools serves, unchanged: an MCP client sees what a Gym agent sees.
  const listed = options.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters as { type: "object"; [key: string]: unknown } }));

  const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

  async function callTool(name: string, args: Record<string, unknown> | undefined, sessionId: string, signal: AbortSignal): Promise<CallToolResult> {
    const { McpError, ErrorCode } = await loadSdk();
    const t = byName.get(name);
    if (!t) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    const body = args ?? {};
    let output: unknown;
    try {
      // Same schema, same FastAPI-shaped 422 detail as POST /<tool>, as the tool's error text (a schema that reads
      // the body itself may throw its own RequestValidationError).
      const parsed = laxValidate(t.input, body);
      if (!parsed.success) return errorResult(stringifyWire({ detail: parsed.errors.map((e) => ({ ...e, loc: ["body", ...e.loc] })) }));
      output = await options.runTool(name, parsed.data, sessionId, signal);
    } catch (error) {
      if (error instanceof RequestValidationError || error instanceof HttpError) return errorResult(stringifyWire({ detail: error.detail }));
      process.stderr.write(`[${options.sessionCookieName}] MCP tools/call ${name} failed: ${(error as Error)?.stack ?? error}\n`);
      return errorResult(exceptionRepr(error));
    }
    // The text is byte for byte what POST /<tool> answers; objects are also given as structured content.
    const text = t.formatOutput ? t.formatOutput(output) : typeof output === "string" ? output : stringifyWire(output, { encoding: "json" });
    const structured = output !== null && typeof output === "object" && !Array.isArray(output) ? { structuredContent: output as Record<string, unknown> } : {};
    return { content: [{ type: "text", text }], ...structured };
  }

  async function mcpServerFor(sessionId: string, signal: AbortSignal, tokenRefused: boolean): Promise<McpServer> {
    const { McpServer, ListToolsRequestSchema, CallToolRequestSchema } = await loadSdk();
    const mcp = new McpServer({ name: options.serverName, version: version() }, { capabilities: { tools: {} } });
    // Handlers on the protocol server itself: registerTool would list the SDK's own JSON Schema rendering.
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
    mcp.server.setRequestHandler(CallToolRequestSchema, (call) =>
      tokenRefused && byName.has(call.params.name) ? errorResult("Invalid Gym MCP session token.") : callTool(call.params.name, call.params.arguments, sessionId, signal),
    );
    return mcp;
  }

  // GET /mcp (a standalone SSE stream) is a 405 from the base app's not-found handler: nothing is pushed.
  app.post("/mcp", async (request, reply) => {
    const { StreamableHTTPServerTransport, ErrorCode } = await loadSdk();
    // The session a call runs against: the seed answer's token when the client sends it (NeMo Gym's way), else the
    // session cookie. A token that is not this server's signing is no session: tools/call answers NeMo Gym's error.
    const token = request.headers[MCP_SESSION_TOKEN_HEADER.toLowerCase()];
    const claims = typeof token === "string" && token !== "" ? codec.mcpToken.loads(token) : undefined;
    const tokenRefused = typeof token === "string" && token !== "" && claims === undefined;
    const mcp = await mcpServerFor(claims?.sid ?? request.sessionId, options.signals.signalFor(reply.raw), tokenRefused);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.setHeader("set-cookie", codec.setCookieHeader(request.sessionId));
    reply.raw.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    try {
      await mcp.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      process.stderr.write(`[${options.sessionCookieName}] POST /mcp failed: ${(error as Error)?.stack ?? error}\n`);
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { "content-type": "application/json" });
        reply.raw.end(JSON.stringify({ jsonrpc: "2.0", error: { code: ErrorCode.InternalError, message: "Internal server error" }, id: null }));
      }
    }
  });
}

/** The header an MCP client sends the seed answer's session token in (NeMo Gym's NEMO_GYM_MCP_SESSION_TOKEN_HEADER). */
export const MCP_SESSION_TOKEN_HEADER = "X-NeMo-Gym-Session-Token";

/**
 * NeMo Gym's normalize_tool_name for a server exposed over MCP: a function call named `mcp__<server>__<tool>` (how
 * MCP clients namespace tools) is scored as `<tool>`; other names pass through. The body is copied, never changed.
 */
export function withBareToolNames<Body extends { response: { output: unknown[] } }>(body: Body, serverName: string): Body {
  const prefix = `mcp__${serverName}__`;
  const named = (item: unknown): item is { type: string; name: string } =>
    typeof item === "object" && item !== null && (item as { type?: unknown }).type === "function_call" && typeof (item as { name?: unknown }).name === "string";
  if (!body.response.output.some((item) => named(item) && item.name.startsWith(prefix))) return body;
  const output = body.response.output.map((item) => (named(item) && item.name.startsWith(prefix) ? { ...item, name: item.name.slice(prefix.length) } : item));
  return { ...body, response: { ...body.response, output } };
}
