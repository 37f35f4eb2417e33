// `/v1/responses` with `stream: true`, as NeMo Gym serves it: the request is mapped from the streaming
// wire dialect (Codex-style harnesses) onto the strict non-streaming params, the server's own
// `responses()` runs to completion, and the finished response is replayed as Responses SSE events.
// Only the envelope streams; there is no token-by-token streaming, so retries and error handling of
// the non-streaming path are kept whole.
import { randomUUID } from "node:crypto";
import { ResponseCreateParamsSchema, ResponseInputItemSchema, ToolSchema, type NeMoGymResponse, type ResponseCreateParams } from "../protocol/index.ts";
import { laxValidate, type PydanticError } from "../python/pydantic/index.ts";

/** Functions grouped under a `namespace` tool are flattened to `<namespace>__<name>` for the backend. */
export const NAMESPACE_TOOL_DELIMITER = "__";

/** Flattened function name → its namespace and own name, to restore call names on the way out. */
export type NamespaceMap = Map<string, { namespace: string; name: string }>;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const PARAM_FIELDS = new Set(Object.keys(ResponseCreateParamsSchema.shape));

export function flattenNamespaceTools(tools: unknown): { tools: unknown[]; namespaces: NamespaceMap } {
  const flat: unknown[] = [];
  const namespaces: NamespaceMap = new Map();
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (!isObject(tool) || tool.type !== "namespace") {
      flat.push(tool);
      continue;
    }
    const namespace = String(tool.name ?? "");
    for (const sub of Array.isArray(tool.tools) ? tool.tools : []) {
      if (!isObject(sub) || !sub.name) continue;
      const joined = `${namespace}${NAMESPACE_TOOL_DELIMITER}${String(sub.name)}`;
      flat.push({ ...sub, type: "function", name: joined });
      namespaces.set(joined, { namespace, name: String(sub.name) });
    }
  }
  return { tools: flat, namespaces };
}

/** A harness's exotic tool is better lost than the rollout: tools the params cannot express are dropped. */
// Validated as NeMo Gym's TypeAdapter(ToolParam) validates it: pydantic lax mode.
const toolIsValid = (tool: unknown) => laxValidate(ToolSchema, tool).success;

const isSystemLike = (item: unknown) => isObject(item) && (item.type === undefined || item.type === null || item.type === "message") && (item.role === "system" || item.role === "developer");

function messageText(item: Json): string {
  if (typeof item.content === "string") return item.content;
  const parts = Array.isArray(item.content) ? item.content : [];
  return parts
    .filter((part): part is Json => isObject(part) && ["input_text", "output_text", "text"].includes(part.type as string))
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .join("");
}

/**
 * Maps a streaming-dialect body onto the strict params shape: drops `stream` and unknown top-level
 * fields, flattens namespace tools (also those shipped in `additional_tools` input items), rewrites
 * replayed namespaced calls, drops input items the protocol cannot represent, and hoists the leading
 * system/developer messages into `instructions`. The caller's body is not mutated.
 */
export function sanitizeStreamingResponsesBody(original: Json): { body: Json; namespaces: NamespaceMap } {
  const body = structuredClone(original);
  delete body.stream;

  let namespaces: NamespaceMap = new Map();
  if ("tools" in body) {
    const flattened = flattenNamespaceTools(body.tools);
    namespaces = flattened.namespaces;
    body.tools = flattened.tools.filter(toolIsValid);
  }

  if (Array.isArray(body.input)) {
    const kept: unknown[] = [];
    const carriedTools: unknown[] = [];
    for (const item of body.input) {
      if (isObject(item) && item.type === "function_call" && item.namespace) {
        item.name = `${String(item.namespace)}${NAMESPACE_TOOL_DELIMITER}${String(item.name)}`;
        delete item.namespace;
      }
      if (isObject(item) && item.type === "additional_tools") {
        if (Array.isArray(item.tools)) carriedTools.push(...item.tools);
        continue;
      }
      // NeMo Gym's TypeAdapter(NeMoGymResponseInputItem) decides, in lax mode; the item is kept as sent.
      if (!laxValidate(ResponseInputItemSchema, item).success) continue;
      kept.push(item);
    }

    if (carriedTools.length > 0) {
      const flattened = flattenNamespaceTools(carriedTools);
      for (const [joined, origin] of flattened.namespaces) namespaces.set(joined, origin);
      // Only function tools have a function-call representation a backend can express.
      const usable = flattened.tools.filter((tool) => isObject(tool) && tool.type === "function" && toolIsValid(tool));
      if (usable.length > 0) body.tools = [...(Array.isArray(body.tools) ? body.tools : []), ...usable];
    }

    // Strict chat backends want one leading system message; `instructions` becomes exactly that.
    const leading = [typeof body.instructions === "string" ? body.instructions : ""];
    while (kept.length > 0 && isSystemLike(kept[0])) leading.push(messageText(kept.shift() as Json));
    const hoisted = leading.filter(Boolean).join("\n\n");
    if (hoisted) body.instructions = hoisted;
    body.input = kept;
  }

  for (const key of Object.keys(body)) if (!PARAM_FIELDS.has(key)) delete body[key];
  return { body, namespaces };
}

/** Deletes the value at a pydantic error `loc`; false when the loc does not walk literally (a union member's name in it). */
function deleteAt(root: unknown, loc: readonly (string | number)[]): boolean {
  let node: unknown = root;
  for (const part of loc.slice(0, -1)) {
    if (Array.isArray(node) && typeof part === "number" && part < node.length) node = node[part];
    else if (isObject(node) && typeof part === "string" && part in node) node = node[part];
    else return false;
  }
  const last = loc.at(-1);
  if (!isObject(node) || typeof last !== "string" || !(last in node)) return false;
  delete node[last];
  return true;
}

/**
 * Validates a sanitized streaming body as NeMo Gym does (pydantic lax mode). Harness wire formats
 * move faster than the pinned types (e.g. `reasoning.context`), so every `extra_forbidden` field is
 * pruned and validation retried; any other problem is returned as pydantic's errors for the 422.
 */
export function validateStreamingResponsesParams(sanitized: Json): { params: ResponseCreateParams; body: Json } | { errors: PydanticError[]; body: Json } {
  const body = structuredClone(sanitized);
  for (;;) {
    const result = laxValidate(ResponseCreateParamsSchema, body);
    if (result.success) return { params: result.data, body };
    let removed = false;
    for (const error of result.errors) {
      if (error.type === "extra_forbidden" && deleteAt(body, error.loc)) removed = true;
    }
    if (!removed) return { errors: result.errors, body };
  }
}

const sseEvent = (payload: Json & { type: string }) => `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;

/**
 * `response.created` → per item `response.output_item.added` + `response.output_item.done` →
 * `response.completed`, namespaced names restored. NeMo Gym sends only the `.done` events; the
 * `.added` twins (and `sequence_number`, as OpenAI numbers its events) are what the official SDKs'
 * stream accumulators need to place each item, and clients that read only `.done` are unaffected.
 */
export function responsesSse(response: NeMoGymResponse | Json, namespaces?: NamespaceMap): string {
  const output = ((response.output as unknown[] | undefined) ?? []).map((item) => {
    if (!namespaces || !isObject(item) || item.type !== "function_call") return item;
    const origin = namespaces.get(String(item.name));
    return origin ? { ...item, namespace: origin.namespace, name: origin.name } : item;
  });
  let sequence = 0;
  const event = (payload: Json & { type: string }) => sseEvent({ ...payload, sequence_number: sequence++ });
  const frames = [event({ type: "response.created", response: { ...response, status: "in_progress", output: [] } })];
  output.forEach((item, index) => {
    frames.push(event({ type: "response.output_item.added", output_index: index, item }));
    frames.push(event({ type: "response.output_item.done", output_index: index, item }));
  });
  frames.push(event({ type: "response.completed", response: { ...response, output } }));
  return frames.join("");
}

/** Once HTTP 200 + event-stream is the contract, a backend failure must be a terminal `response.failed`. */
export function responsesFailureSse(message: string, code = "server_error"): string {
  const response = { id: `resp_${randomUUID().replace(/-/g, "")}`, object: "response", status: "failed", output: [], error: { code, message } };
  return (
    sseEvent({ type: "response.created", response: { ...response, status: "in_progress" }, sequence_number: 0 }) +
    sseEvent({ type: "response.failed", response, sequence_number: 1 })
  );
}
