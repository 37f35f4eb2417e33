// A port that refuses connections for the whole test run. Binding port 0 and closing it is not enough:
// a test file running in parallel may be handed the same port by the kernel a moment later. Ports below
// the ephemeral range (net.ipv4.ip_local_port_range, 32768+ by default) are never handed out by a port-0
// bind, so one that nothing listens on stays refused.
import { connect } from "node:net";

const CANDIDATES = [9, 19, 29, 39, 49, 59, 69];

const refuses = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });

export async function refusedPort(): Promise<number> {
  for (const port of CANDIDATES) if (await refuses(port)) return port;
  throw new Error(`every candidate port (${CANDIDATES.join(", ")}) accepts connections on this machine; pick others in src/testing/ports.ts`);
}
