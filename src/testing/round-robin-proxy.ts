// A loopback round-robin balancer in front of replicas of one server, for tests and demos of shared sessions: each
// request goes to the next replica in turn, so a rollout's consecutive calls land on different processes.
// A replica that refuses the connection (it is dead) is skipped and the request goes to the next one: it never
// reached the dead one, so forwarding it elsewhere cannot apply it twice. A replica that dies mid-exchange cannot be
// decided for here (it may have run the call): the caller's connection is reset, as the replica's was, and the
// caller's own rule decides whether to replay (an idempotency-keyed call is replayed; see src/client/http-client.ts).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ProxyTarget {
  host: string;
  port: number;
}

export interface RoundRobinProxy {
  url: string;
  port: number;
  /** Requests answered, by the replica (`host:port`) that answered. */
  readonly answeredBy: Record<string, number>;
  /** Replicas skipped because they refused a connection (once each refusal). */
  readonly refused: number;
  /** Callers' connections reset because a replica failed mid-exchange. */
  readonly resets: number;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 2_000;

export async function startRoundRobinProxy(targets: readonly ProxyTarget[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error("a round-robin proxy needs at least one target");
  let next = 0;
  const answeredBy: Record<string, number> = {};
  const stats = { refused: 0, resets: 0 };
  const sockets = new Set<Socket>();

  const forward = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse, tried: number): void => {
    const target = targets[next++ % targets.length]!;
    const name = `${target.host}:${target.port}`;
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
      incoming.socket.resetAndDestroy();
    };
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(connectTimer);
      if (!connected && error.code === "ECONNREFUSED") {
        stats.refused++;
        if (tried + 1 < targets.length) return forward(incoming, body, outgoing, tried + 1);
        outgoing.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ detail: "no replica accepted the connection" }));
        return;
      }
      if (outgoing.headersSent) outgoing.destroy();
      else resetCaller();
    });
    upstream.end(body);
  };

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => forward(incoming, Buffer.concat(chunks), outgoing, 0));
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
