// The calls an agent makes through the graph, shared by the agents that make them (simple_agent,
// non_executing_simple_agent, scicode_agent): its /run seeds the row's session on the resources server, calls this
// agent's own /v1/responses (under the row's /ng-rollout/<id> prefix, so its model calls carry the id) and
// verifies; its /v1/responses calls the model. Each takes only the servers' own answers
// (src/client/inner-answer.ts): anything else ends the attempt as a typed failure, never a score.
import type { HttpResponse } from "../client/http-client.ts";
import { ResponseSchema, type NeMoGymResponse, type Usage } from "../protocol/index.ts";
import { innerCall, requireOwnSuccess, requireSessionCookie, requireVerifyResponse } from "../client/inner-answer.ts";
import { rolloutIdForRow, rolloutPathPrefix } from "./agent-server.ts";
import type { ServerContext } from "./definition.ts";

/** What a step needs of the agent's ServerContext: its client, its own instance name, the global config. */
export type AgentGraph = Pick<ServerContext<unknown>, "client" | "instanceName" | "globalConfig" | "self">;

/** One /run's row, the caller's cookies, and the signal that stops the attempt when the caller hangs up. */
export interface RolloutCall {
  row: Record<string, unknown> & { responses_create_params: unknown };
  cookies: Record<string, string>;
  signal: AbortSignal;
}

/**
 * `POST <resources>/seed_session` with the row: the session's cookies. An answer without the session cookie is not
 * the server's (what followed would run in a fresh, unseeded session).
 */
export async function seedSession({ client }: AgentGraph, resources: string, { row, cookies, signal }: RolloutCall): Promise<Record<string, string>> {
  const url = `${resources}/seed_session`;
  const seeded = requireOwnSuccess(await innerCall(url, () => client.post(resources, "/seed_session", { json: row, cookies, signal })), url);
  return requireSessionCookie(seeded, url);
}

/** This agent's own /v1/responses path for the row: prefixed with its rollout id when observability is on. */
export const ownResponsesPath = (row: Record<string, unknown>, { globalConfig }: AgentGraph): string => `${rolloutPathPrefix(rolloutIdForRow(row, globalConfig))}/v1/responses`;

/** `POST <this agent><path>` (ownResponsesPath) with the request: its own successful answer. */
export async function callOwnResponses({ client, instanceName, self }: AgentGraph, path: string, request: { json: unknown; cookies: Record<string, string>; signal: AbortSignal }): Promise<HttpResponse> {
  const url = `${instanceName}${path}`;
  // In-process when the agent runs it so (the same answer as over HTTP, without a socket, a request and a reply).
  return requireOwnSuccess(await innerCall(url, () => self?.post(path, request) ?? client.post(instanceName, path, request)), url);
}

/** The request with a string `input` made the one user message NeMo Gym's agents make of it (a list stays as is). */
export function withListInput<Params extends { input: unknown }>(params: Params): Params | (Omit<Params, "input"> & { input: { role: "user"; content: string; type: "message" }[] }) {
  return typeof params.input === "string" ? { ...params, input: [{ role: "user", content: params.input, type: "message" }] } : params;
}

/** `POST <model server><path>` (path: `[/ng-rollout/<id>]/v1/responses`): the model's response, validated, and the cookies it set. */
export async function callModel(
  { client }: AgentGraph,
  modelServer: string,
  path: string,
  request: { json: unknown; cookies?: Record<string, string>; signal: AbortSignal },
): Promise<{ response: NeMoGymResponse; cookies: Record<string, string> }> {
  const url = `${modelServer}${path}`;
  const answer = requireOwnSuccess(await innerCall(url, () => client.post(modelServer, path, request)), url);
  const parsed = ResponseSchema.safeParse(answer.json());
  if (!parsed.success) throw new Error(`Received an invalid response from model server: ${answer.text.slice(0, 2000)}`);
  return { response: parsed.data, cookies: answer.cookies };
}

/** `POST <resources>/verify` with the body: the verify response, which must carry a numeric reward. */
export async function verifyRollout({ client }: AgentGraph, resources: string, request: { json: Record<string, unknown>; cookies: Record<string, string>; signal: AbortSignal }): Promise<Record<string, unknown> & { reward: number }> {
  const url = `${resources}/verify`;
  return requireVerifyResponse(requireOwnSuccess(await innerCall(url, () => client.post(resources, "/verify", request)), url), url);
}

/**
 * The start of simple_agent's and non_executing_simple_agent's /run: seed the row's session, then run this agent's
 * /v1/responses on the row's `responses_create_params` in it. The answer's JSON is the response to verify, and its
 * cookies the session to verify in.
 */
export async function seededOwnResponses(graph: AgentGraph, resources: string, call: RolloutCall): Promise<HttpResponse> {
  const sessionCookies = await seedSession(graph, resources, call);
  return callOwnResponses(graph, ownResponsesPath(call.row, graph), { json: call.row.responses_create_params, cookies: sessionCookies, signal: call.signal });
}

/** simple_agent's usage rule (NeMo Gym's): the first usage is kept as is; later ones add their token counts and zero the details. */
export function addUsage(total: Usage | null, next: Usage | null | undefined): Usage | null {
  if (!next) return total;
  if (!total) return structuredClone(next);
  return {
    ...total,
    input_tokens: total.input_tokens + next.input_tokens,
    output_tokens: total.output_tokens + next.output_tokens,
    total_tokens: total.total_tokens + next.total_tokens,
    input_tokens_details: { ...total.input_tokens_details, cached_tokens: 0 },
    output_tokens_details: { ...total.output_tokens_details, reasoning_tokens: 0 },
  };
}

/** NeMo Gym's FunctionCallOutput as it serializes (id and status unset). */
export const functionCallOutput = (callId: string, output: string) => ({ call_id: callId, output, type: "function_call_output", id: null, status: null });
