// A loopback round-robin balancer in front of replicas of one server, for tests and demos of shared sessions: each
// request goes to the next replica in turn, so a rollout's consecutive calls land on different processes.
// A replica that refuses the connection (it is dead) is skipped and the request goes to the next one: it never
// reached the dead one, so forwarding it elsewhere cannot apply it twice. A replica that dies mid-exchange cannot be
// decided for here (it may have run the call): the caller's connection is reset, as the replica's was, and the
// caller's own rule decides whether to replay (an idempotency-keyed call is replayed; see src/client/http-client.ts).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { IDEMPOTENCY_KEY_HEADER } from "../protocol/failures.ts";

export interface ProxyTarget {
  host: string;
  port: number;
}

export interface RoundRobinProxy {
  url: string;
  port: number;
  /** Requests answered, by the replica (`host:port`) that answered. */
  readonly answeredBy: Record<string, number>;
  /** Connections refused by a (dead) replica, each followed by a try on another one. */
  readonly refused: number;
  /** Callers' connections reset because a replica failed mid-exchange. */
  readonly resets: number;
  /** Of those, requests carrying an idempotency key (the caller replays them; the others fail their attempt). */
  readonly keyedResets: number;
  /** Requests forwarded to this replica and not yet answered in full. */
  inFlight(target: ProxyTarget): number;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 2_000;
const REFUSED_PASS_OVER_MS = 1_000;

export async function startRoundRobinProxy(targets: readonly ProxyTarget[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error("a round-robin proxy needs at least one target");
  let next = 0;
  const answeredBy: Record<string, number> = {};
  const stats = { refused: 0, resets: 0, keyedResets: 0 };
  const pending = new Map<ProxyTarget, number>();
  const sockets = new Set<Socket>();

  // A replica that refused is passed over for a while (other requests would otherwise keep meeting it).
  const refusedUntil = new Map<ProxyTarget, number>();
  const pick = (tried: ReadonlySet<ProxyTarget>): ProxyTarget | undefined => {
    const now = Date.now();
    const start = next++;
    const untried = Array.from({ length: targets.length }, (_, offset) => targets[(start + offset) % targets.length]!).filter((target) => !tried.has(target));
    return untried.find((target) => (refusedUntil.get(target) ?? 0) <= now) ?? untried[0];
  };

  const forward = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse, tried: Set<ProxyTarget>): void => {
    const target = pick(tried);
    if (target === undefined) {
      outgoing.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ detail: "no replica accepted the connection" }));
      return;
    }
    tried.add(target);
    const name = `${target.host}:${target.port}`;
    pending.set(target, (pending.get(target) ?? 0) + 1);
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      pending.set(target, pending.get(target)! - 1);
    };
    outgoing.once("close", settle);
    let connected = false;
    // A fresh connection per request: a kept-alive socket to a dead replica would fail mid-exchange, not refuse.
    const upstream = httpRequest({ host: target.host, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers, agent: false }, (answer) => {
      answeredBy[name] = (answeredBy[name] ?? 0) + 1;
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
      answer.on("error", () => resetCaller());
    });
    const connectTimer = setTimeout(() => upstream.destroy(Object.assign(new Error("connect timeout"), { code: "ECONNREFUSED" })), CONNECT_TIMEOUT_MS);
    upstream.on("socket", (socket) => socket.once("connect", () => ((connected = true), clearTimeout(connectTimer))));
    const resetCaller = () => {
      stats.resets++;
      if (incoming.headers[IDEMPOTENCY_KEY_HEADER] !== undefined) stats.keyedResets++;
      incoming.socket.resetAndDestroy();
    };
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(connectTimer);
      if (!connected && error.code === "ECONNREFUSED") {
        settle();
        stats.refused++;
        refusedUntil.set(target, Date.now() + REFUSED_PASS_OVER_MS);
        return forward(incoming, body, outgoing, tried);
      }
      if (outgoing.headersSent) outgoing.destroy();
      else resetCaller();
    });
    upstream.end(body);
  };

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => forward(incoming, Buffer.concat(chunks), outgoing, new Set()));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    answeredBy,
    get refused() {
      return stats.refused;
    },
    get resets() {
      return stats.resets;
    },
    get keyedResets() {
      return stats.keyedResets;
    },
    inFlight: (target) => pending.get(target) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
