// The head server: discovery for clients outside the launcher (`gym eval run --no-serve`, `gym env status`,
// trainers). It serves the merged global config — as a JSON string holding unresolved YAML, like NeMo Gym —
// and the list of running server instances.
import Fastify, { type FastifyInstance } from "fastify";
import { dumpYaml, type ConfigDict } from "../config/index.ts";

export interface InstanceRecord {
  config_path: string;
  dir_path: string;
  entrypoint: string;
  host: string;
  name: string;
  pid: number | null;
  port: number | null;
  process_name: string;
  server_type: string;
  start_time: number;
  status: "starting" | "running" | "exited";
  uptime_seconds: number;
  url: string | null;
}

export interface HeadServerState {
  rawConfig(): ConfigDict;
  instances(): InstanceRecord[];
}

export async function startHeadServer(state: HeadServerState, host: string, port: number): Promise<{ app: FastifyInstance; port: number; url: string }> {
  const app = Fastify({ logger: false });
  app.get("/", async () => ({ status: "ok" }));
  app.get("/global_config_dict_yaml", async (_request, reply) => reply.header("content-type", "application/json").send(JSON.stringify(dumpYaml(state.rawConfig()))));
  app.get("/server_instances", async () => state.instances());
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: "Not Found" }));
  try {
    await app.listen({ host, port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(`head server port ${port} on ${host} is in use (another gym running?); stop it or choose another with ++head_server.port=<port> (0 = any free port)`);
    }
    throw error;
  }
  const address = app.server.address();
  const boundPort = typeof address === "object" && address ? address.port : port;
  return { app, port: boundPort, url: `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}` };
}
