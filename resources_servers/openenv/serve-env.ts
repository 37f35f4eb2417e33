// Serves one of the built-in environments as a standalone OpenEnv-protocol server, for an OpenEnv client
// (OpenEnv's own EnvClient, or this adapter with openenv_base_url) to reach:
//   node --import tsx resources_servers/openenv/serve-env.ts maze [--host 127.0.0.1] [--port 8000]
// The coding environment runs its code in the bubblewrap sandbox (a host without one fails at start).
import { parseArgs } from "node:util";
import { startOpenEnvServer } from "../../src/ports/openenv/env-server.ts";
import { BubblewrapSandbox } from "../../src/sandbox/index.ts";
import { builtinByName } from "./envs/index.ts";

const { positionals, values } = parseArgs({ allowPositionals: true, options: { host: { type: "string", default: "127.0.0.1" }, port: { type: "string", default: "8000" }, "max-sessions": { type: "string", default: "64" } } });
const found = builtinByName(positionals[0] ?? "");
if (!found || positionals.length !== 1) {
  process.stderr.write("usage: serve-env.ts echo|coding|maze [--host H] [--port P] [--max-sessions N]\n");
  process.exit(2);
}
const [envClass, builtin] = found;
const sandbox = builtin.needsSandbox ? new BubblewrapSandbox() : undefined;
await sandbox?.ensureAvailable();
const server = await startOpenEnvServer(builtin.spec({ sandbox }), { host: values.host, port: Number(values.port), maxSessions: Number(values["max-sessions"]) });
process.stdout.write(`${envClass} (OpenEnv protocol) at ${server.url} (WS ${server.url.replace(/^http/, "ws")}/ws)\n`);
const stop = async () => {
  await server.close();
  await sandbox?.close();
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
