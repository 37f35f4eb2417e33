// A loopback HTTP proxy that injects the faults a flaky network and a broken middlebox produce, for tests that
// prove no fault is ever scored. Each request is forwarded to one target unless `decide` picks a fault for it:
//   reset_before  the connection is reset before anything is forwarded (the server never sees the call)
//   reset_after   forwarded, the server answered, then the client's connection is reset (the call ran)
//   truncate      forwarded; the client gets the headers and half the body, then the connection closes
//   garbage_200   forwarded; the client gets a 200 whose body is not JSON, without the server's headers
//   garbage_500   not forwarded; a 500 with an HTML body, as a crashing proxy answers
//   unavailable   not forwarded; a 503 (a load balancer with no backend)
//   hang          not forwarded and never answered (until the proxy closes)
// or a canned answer `{ status, body, headers }`, sent without forwarding.
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { seededRandom } from "../models/seeded-random.ts";
import { getServerInstanceConfig, type ConfigDict } from "../config/index.ts";
import type { InProcessGraph } from "./in-process.ts";

export const FAULTS = ["reset_before", "reset_after", "truncate", "garbage_200", "garbage_500", "unavailable", "hang"] as const;
export type Fault = (typeof FAULTS)[number];
export interface CannedAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The fault for one request, or `undefined` to forward it untouched. */
export type FaultDecider = (request: ProxiedRequest) => Fault | CannedAnswer | undefined;

export interface FaultProxy {
  host: string;
  port: number;
  url: string;
  /** Replaced at any time; applies to requests that arrive afterwards. */
  decide: FaultDecider;
  /** Requests seen, by what happened to them (`forwarded` for untouched ones, `canned` for canned answers). */
  readonly counts: Record<string, number>;
  close(): Promise<void>;
}

const GARBAGE_HTML = "<html><body><h1>Internal Server Error</h1>upstream exploded</body></html>";
const GARBAGE_BYTES = "\u0000\u00ffnot json at all {{{";

/** A fault schedule is reproducible from its seed (mulberry32, src/models/seeded-random.ts). */
export { seededRandom };

/** A fault for a `rate` share of the requests, each fault equally likely, drawn from `random`. */
export function randomFaults(random: () => number, rate: number, faults: readonly Fault[] = FAULTS): FaultDecider {
  return () => (random() < rate ? faults[Math.floor(random() * faults.length)] : undefined);
}

interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export async function startFaultProxy(target: { host: string; port: number }, decide: FaultDecider = () => undefined): Promise<FaultProxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const sockets = new Set<Socket>();
  const counts: Record<string, number> = {};
  const count = (what: string) => (counts[what] = (counts[what] ?? 0) + 1);

  const forward = (request: ProxiedRequest) =>
    new Promise<Upstream>((resolve, reject) => {
      const outgoing = httpRequest({ host: target.host, port: target.port, method: request.method, path: request.path, headers: request.headers, agent }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on("error", reject);
      });
      outgoing.on("error", reject);
      outgoing.end(request.body);
    });

  const send = (res: ServerResponse, status: number, headers: IncomingHttpHeaders | Record<string, string>, body: Buffer | string) => {
    const { "transfer-encoding": _chunked, "content-length": _length, connection: _connection, "keep-alive": _keepAlive, ...kept } = headers as IncomingHttpHeaders;
    res.writeHead(status, { ...kept, "content-length": Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: ProxiedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks) };
    const fault = proxy.decide(request);
    if (typeof fault === "object") {
      count("canned");
      return send(res, fault.status, { "content-type": "application/json", ...fault.headers }, fault.body);
    }
    count(fault ?? "forwarded");
    switch (fault) {
      case "reset_before":
        return void req.socket.resetAndDestroy();
      case "hang":
        return;
      case "garbage_500":
        return send(res, 500, { "content-type": "text/html" }, GARBAGE_HTML);
      case "unavailable":
        return send(res, 503, { "content-type": "text/plain" }, "Service Unavailable");
    }
    let upstream: Upstream;
    try {
      upstream = await forward(request);
    } catch (error) {
      return send(res, 502, { "content-type": "text/plain" }, `proxy: ${(error as Error).message}`);
    }
    switch (fault) {
      case undefined:
        return send(res, upstream.status, upstream.headers, upstream.body);
      case "reset_after":
        return void req.socket.resetAndDestroy();
      case "garbage_200":
        return send(res, 200, { "content-type": "application/json" }, GARBAGE_BYTES);
      case "truncate": {
        const { "transfer-encoding": _chunked, "content-length": _length, ...kept } = upstream.headers;
        res.writeHead(upstream.status, { ...kept, "content-length": upstream.body.length });
        return void res.write(upstream.body.subarray(0, Math.floor(upstream.body.length / 2)), () => req.socket.destroy());
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.keepAliveTimeout = 30_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const proxy: FaultProxy = {
    host: "127.0.0.1",
    port,
    url: `http://127.0.0.1:${port}`,
    decide,
    counts,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
  return proxy;
}

/**
 * A fault proxy in front of `target`, an instance of `graph`, registered in the graph's config as `alias` (same server
 * type and fields, the proxy's address): an agent configured to call `alias` goes through the proxy.
 */
export async function proxyInstance(graph: InProcessGraph, target: string, alias: string): Promise<FaultProxy> {
  const [serverType, implementations] = Object.entries(graph.config[target] as ConfigDict)[0]!;
  const [implementation, fields] = Object.entries(implementations as ConfigDict)[0]!;
  const proxy = await startFaultProxy(getServerInstanceConfig(graph.config, target) as { host: string; port: number });
  graph.config[alias] = { [serverType]: { [implementation]: { ...(fields as ConfigDict), host: proxy.host, port: proxy.port } } };
  graph.client.updateGlobalConfig(graph.config);
  return proxy;
}

