// The view server's JSON API, as the page calls it; the shapes are the server's own types.
import type { RunOverview } from "../viewed-run.ts";
import type { Comparison, Page, TableFilter, TableRow } from "../rollout-table.ts";
import type { LineKind, LineSummary } from "../line-summary.ts";
import type { PlaygroundCall, PlaygroundServer } from "../playground.ts";

export type { RunOverview, Comparison, TableRow, LineKind, LineSummary, PlaygroundCall, PlaygroundServer };

/** An answer that was not 2xx: the server's `detail` says why. */
export class ApiError extends Error {}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const answer = await fetch(path, init);
  const body = await answer.json().catch(() => ({ detail: answer.statusText }));
  if (!answer.ok) throw new ApiError(String((body as { detail?: unknown }).detail ?? answer.status));
  return body as T;
}

const post = <T>(path: string, json: unknown) => call<T>(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) });

/** The server's table filter, plus the page wanted. */
export interface TableQuery extends TableFilter {
  offset: number;
  limit: number;
}

function queryString(query: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(key, String(value));
  return params.toString();
}

export interface RolloutLine {
  summary: Omit<LineSummary, "offset" | "bytes">;
  line: Record<string, unknown>;
}

export const api = {
  runs: () => call<RunOverview[]>("/api/runs"),
  table: (run: number, query: TableQuery) => call<Page<TableRow> & { version: string }>(`/api/runs/${run}/table?${queryString(query)}`),
  line: (run: number, kind: LineKind, index: number) => call<RolloutLine>(`/api/runs/${run}/lines/${kind}/${index}`),
  compare: (a: number, b: number, offset: number, limit: number) => call<Comparison>(`/api/compare?${queryString({ a, b, offset, limit })}`),
  seedRow: (run: number, task: number, repeat: number) => call<{ source: string; row: Record<string, unknown> }>(`/api/runs/${run}/seed-row?${queryString({ task, repeat })}`),
  servers: () => call<{ headServer: string; servers: PlaygroundServer[] }>("/api/playground/servers"),
  openSession: (server: string) => post<{ session: string; server: PlaygroundServer; tools: ToolDefinition[] }>("/api/playground/sessions", { server }),
  callTool: (session: string, path: string, body: unknown) => post<PlaygroundCall>(`/api/playground/sessions/${session}/call`, { path, body }),
};

/** One entry of a resources server's GET /tools (an OpenAI function tool). */
export interface ToolDefinition {
  type: string;
  name: string;
  description?: string;
  parameters?: JsonSchema;
}

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  default?: unknown;
}
