// The server behind `gym view`: the page, and a JSON API over the runs' files (read again as they grow) and over
// the playground. Every answer is small: the table and the comparison come a page at a time, a rollout alone.
import Fastify, { type FastifyInstance } from "fastify";
import type { LineKind } from "./line-summary.ts";
import { compareRuns, tablePage, type TableFilter } from "./rollout-table.ts";
import { Playground } from "./playground.ts";
import { ViewRequestError } from "./request-error.ts";
import { ViewedRun } from "./viewed-run.ts";
import { PAGE_HTML, webBundle } from "./web-bundle.ts";

export interface ViewServerOptions {
  /** Rollouts files, one run each (sidecars already left out: see runPathsOf). */
  runPaths: readonly string[];
  /** Where the playground finds the running resources servers. */
  headServerUrl: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
}

export interface ViewServer {
  app: FastifyInstance;
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_PAGE_ROWS = 500;

const pageQuery = {
  offset: { type: "integer", minimum: 0, default: 0 },
  limit: { type: "integer", minimum: 1, maximum: MAX_PAGE_ROWS, default: 50 },
} as const;

const tableQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...pageQuery,
    status: { type: "string", enum: ["all", "rollout", "failure"], default: "all" },
    failureClass: { type: "string", minLength: 1 },
    text: { type: "string" },
    task: { type: "integer" },
    minReward: { type: "number" },
    maxReward: { type: "number" },
  },
} as const;

interface TableQuery extends TableFilter {
  offset: number;
  limit: number;
}

export async function buildViewServer(options: ViewServerOptions): Promise<{ app: FastifyInstance; playground: Playground }> {
  const runs = options.runPaths.map((path, id) => new ViewedRun(id, path));
  const playground = new Playground(options.headServerUrl.replace(/\/$/, ""));
  const bundle = await webBundle();
  // A playground seed row can hold a long-context prompt; fastify's 1 MB default would refuse some benchmarks' rows.
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });

  const runOf = (id: number): ViewedRun => {
    const run = runs[id];
    if (!run) throw new ViewRequestError(404, `run: no run ${id} (there are ${runs.length})`);
    // Each request reads what the files gained since the last one: a live collection shows up as it writes.
    run.refresh();
    return run;
  };

  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _request, reply) => {
    if (error instanceof ViewRequestError) return reply.code(error.statusCode).send({ detail: error.message });
    // A bad query or body (fastify's schema check): its message names the field.
    if (error.validation) return reply.code(400).send({ detail: error.message });
    if (error.statusCode && error.statusCode < 500) return reply.code(error.statusCode).send({ detail: error.message });
    return reply.code(500).send({ detail: `gym view: ${error.message}` });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ detail: `no route ${request.method} ${request.url}` }));

  app.get("/", (_request, reply) => reply.type("text/html; charset=utf-8").send(PAGE_HTML));
  app.get("/app.js", (_request, reply) => reply.type("text/javascript; charset=utf-8").send(bundle.script));
  app.get("/app.css", (_request, reply) => reply.type("text/css; charset=utf-8").send(bundle.style));

  app.get("/api/runs", async () => runs.map((run) => (run.refresh(), run.overview())));

  app.get<{ Params: { run: number }; Querystring: TableQuery }>(
    "/api/runs/:run/table",
    { schema: { params: { type: "object", properties: { run: { type: "integer", minimum: 0 } } }, querystring: tableQuery } },
    async (request) => {
      const { offset, limit, ...filter } = request.query;
      const run = runOf(request.params.run);
      return { version: run.version, ...tablePage(run, filter, offset, limit) };
    },
  );

  app.get<{ Params: { run: number; kind: LineKind; index: number } }>(
    "/api/runs/:run/lines/:kind/:index",
    {
      schema: {
        params: {
          type: "object",
          properties: { run: { type: "integer", minimum: 0 }, kind: { type: "string", enum: ["rollout", "failure", "input"] }, index: { type: "integer", minimum: 0 } },
        },
      },
    },
    async (request) => {
      const { kind, index } = request.params;
      const run = runOf(request.params.run);
      const line = run.file(kind).readLine(index);
      if (line === null) throw new ViewRequestError(404, `index: run ${run.id} has no ${kind} line ${index} (it has ${run.file(kind).lines.length})`);
      const { offset: _offset, bytes: _bytes, ...summary } = run.file(kind).lines[index]!;
      return { summary, line };
    },
  );

  app.get<{ Querystring: { a: number; b: number; offset: number; limit: number } }>(
    "/api/compare",
    {
      schema: {
        querystring: {
          type: "object",
          required: ["a", "b"],
          additionalProperties: false,
          properties: { a: { type: "integer", minimum: 0 }, b: { type: "integer", minimum: 0 }, ...pageQuery },
        },
      },
    },
    async (request) => {
      const { a, b, offset, limit } = request.query;
      return compareRuns(runOf(a), runOf(b), offset, limit);
    },
  );

  app.get<{ Params: { run: number }; Querystring: { task: number; repeat: number } }>(
    "/api/runs/:run/seed-row",
    {
      schema: {
        params: { type: "object", properties: { run: { type: "integer", minimum: 0 } } },
        querystring: { type: "object", required: ["task"], properties: { task: { type: "integer" }, repeat: { type: "integer", default: 0 } } },
      },
    },
    async (request) => {
      const { task, repeat } = request.query;
      const run = runOf(request.params.run);
      const seed = run.seedRow(task, repeat);
      if (!seed) throw new ViewRequestError(404, `task: run ${run.id} has no row for task ${task}, repeat ${repeat}`);
      return seed;
    },
  );

  app.get("/api/playground/servers", async () => ({ headServer: playground.headServerUrl, servers: await playground.servers() }));

  app.post<{ Body: { server: string } }>(
    "/api/playground/sessions",
    { schema: { body: { type: "object", required: ["server"], properties: { server: { type: "string", minLength: 1 } } } } },
    async (request) => playground.open(request.body.server),
  );

  app.post<{ Params: { session: string }; Body: { path: string; body: unknown } }>(
    "/api/playground/sessions/:session/call",
    { schema: { body: { type: "object", required: ["path", "body"], properties: { path: { type: "string", minLength: 1 }, body: { type: "object" } } } } },
    async (request) => playground.call(request.params.session, request.body.path, request.body.body),
  );

  app.addHook("onClose", () => playground.close());
  return { app, playground };
}

export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const { app } = await buildViewServer(options);
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
  return { app, port, url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`, close: () => app.close() };
}
