// `gym gateway`: the relax-nemo-gym/v1 trial gateway as a long-running process. Settings come from the
// NEMO_GYM_* environment of the reference deployment; flags override the few a person types.
import { UserError } from "../config/errors.ts";
import { GatewayConfigError } from "../gateway/errors.ts";
import { startGateway } from "../gateway/gateway.ts";
import { loadGatewaySettings } from "../gateway/settings.ts";
import { createLogger } from "../server/logger.ts";
import { defineCommand, flag, PORT, POSITIVE_NUMBER } from "./command.ts";

export const gatewayCommand = defineCommand({
  path: ["gateway"],
  description: "serve the relax-nemo-gym/v1 trial API and the model-callback bridge for RL trainers",
  examples: ["NEMO_GYM_CALLBACK_ALLOWED_NETWORKS=10.0.0.0/8 gym gateway --environments gateway-environments.yaml --port 29300"],
  flags: {
    host: flag.string("host", "bind address", { default: "127.0.0.1" }),
    port: flag.number("port", "port (0 picks a free one)", PORT, { default: 29300 }),
    environments: flag.string("file", "environment registrations, JSON or YAML (else NEMO_GYM_GATEWAY_ENVIRONMENTS[_JSON])"),
    state: flag.string("url", "trial state: a SQLite file, :memory:, or redis://host:port (else NEMO_GYM_GATEWAY_STATE)"),
    namespace: flag.string("name", "separates deployments sharing one Redis", { default: process.env.NEMO_GYM_GATEWAY_NAMESPACE ?? "default" }),
    lockDuration: flag.number("seconds", "Redis only: how long a dead replica's trials wait before another reconciles them", POSITIVE_NUMBER, { default: 30 }),
  },
  async run(_config, { flags, print }) {
    const env = { ...process.env };
    if (flags.environments) env.NEMO_GYM_GATEWAY_ENVIRONMENTS = flags.environments;
    if (flags.state) env.NEMO_GYM_GATEWAY_STATE = flags.state;
    let gateway: Awaited<ReturnType<typeof startGateway>>;
    try {
      gateway = await startGateway({
        settings: loadGatewaySettings(env),
        logger: createLogger("gateway"),
        host: flags.host,
        port: flags.port,
        namespace: flags.namespace,
        lockDurationMs: flags.lockDuration * 1000,
      });
    } catch (error) {
      // The gateway floor's own class for a deployment's mistakes (bad registrations, networks, state URL).
      if (error instanceof GatewayConfigError) throw new UserError(error.message, { cause: error });
      throw error;
    }
    print(`gateway ${gateway.url}`);
    const signal = await new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    print(`gateway stopping (${signal}): running trials end as service_shutdown`);
    await gateway.close();
  },
});
