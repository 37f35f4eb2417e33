// `gym gateway`: the relax-nemo-gym/v1 trial gateway as a long-running process. Settings come from the
// NEMO_GYM_* environment of the reference deployment; flags override the few a person types.
import type { Command } from "commander";
import { startGateway } from "../gateway/gateway.ts";
import { loadGatewaySettings } from "../gateway/settings.ts";
import { createLogger } from "../server/logger.ts";

interface GatewayFlags {
  host: string;
  port: string;
  environments?: string;
  state?: string;
  namespace: string;
  lockDuration: string;
}

export function registerGateway(program: Command, print: (line: string) => void): Command {
  return program
    .command("gateway")
    .description("serve the relax-nemo-gym/v1 trial API and the model-callback bridge for RL trainers")
    .option("--host <host>", "bind address", "127.0.0.1")
    .option("--port <port>", "port (0 picks a free one)", "29300")
    .option("--environments <file>", "environment registrations, JSON or YAML (else NEMO_GYM_GATEWAY_ENVIRONMENTS[_JSON])")
    .option("--state <url>", "trial state: a SQLite file, :memory:, or redis://host:port (else NEMO_GYM_GATEWAY_STATE)")
    .option("--namespace <name>", "separates deployments sharing one Redis", process.env.NEMO_GYM_GATEWAY_NAMESPACE ?? "default")
    .option("--lock-duration <seconds>", "Redis only: how long a dead replica's trials wait before another reconciles them", "30")
    .action(async (flags: GatewayFlags) => {
      const env = { ...process.env };
      if (flags.environments) env.NEMO_GYM_GATEWAY_ENVIRONMENTS = flags.environments;
      if (flags.state) env.NEMO_GYM_GATEWAY_STATE = flags.state;
      const settings = loadGatewaySettings(env);
      const gateway = await startGateway({
        settings,
        logger: createLogger("gateway"),
        host: flags.host,
        port: Number(flags.port),
        namespace: flags.namespace,
        lockDurationMs: Number(flags.lockDuration) * 1000,
      });
      print(`gateway ${gateway.url}`);
      const signal = await new Promise<string>((resolve) => {
        process.once("SIGINT", () => resolve("SIGINT"));
        process.once("SIGTERM", () => resolve("SIGTERM"));
      });
      print(`gateway stopping (${signal}): running trials end as service_shutdown`);
      await gateway.close();
    });
}
