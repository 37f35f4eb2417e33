// Shared pieces of the vllm_model tests: servers on loopback against fake vLLM servers, and request helpers.
import assert from "node:assert/strict";
import type { HttpResponse } from "../../../src/client/index.ts";
import { sessionCookieCodecFor } from "../../../src/server/index.ts";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import vllmModel from "../app.ts";

export { vllmModel };

export const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

export interface Harness {
  graph: InProcessGraph;
  /** POST a path on an instance; `session` pins the call to a session id (signed cookie). */
  post(instance: string, path: string, body: unknown, session?: string): Promise<HttpResponse>;
  responses(instance: string, body: unknown, session?: string): Promise<HttpResponse>;
  /** `responses()` that must answer 200; returns the parsed body. */
  ok(instance: string, body: unknown): Promise<any>;
  close(): Promise<void>;
}

/** `{ instance: config fields }` → running vllm_model servers. */
export async function startVllmModels(instances: Record<string, Record<string, unknown>>): Promise<Harness> {
  const graph = await startServers(Object.fromEntries(Object.entries(instances).map(([name, fields]) => [name, [vllmModel, fields]])));
  const client = http();
  const post = (instance: string, path: string, body: unknown, session?: string) => {
    const codec = sessionCookieCodecFor(`VLLMModel___${instance}`, graph.sessionSigning);
    const cookies = session === undefined ? undefined : { [codec.cookieName]: codec.encode(session) };
    return client.request(`${graph.url(instance)}${path}`, { method: "POST", json: body, cookies });
  };
  return {
    graph,
    post,
    responses: (instance, body, session) => post(instance, "/v1/responses", body, session),
    async ok(instance, body) {
      const answer = await post(instance, "/v1/responses", body);
      assert.equal(answer.status, 200, answer.text);
      return answer.json();
    },
    async close() {
      await graph.close();
      await client.close();
    },
  };
}

/** A port nothing listens on for the whole run. */
export { refusedPort as closedPort } from "../../../src/testing/index.ts";
