// Startup check for a Gateway that runs inside a NeMo Gym config as the agents' model server (spec §1.6).
// Model calls only come back to the Gateway when the agents are configured to send them here, under the
// per-rollout path prefix, from the very process the registration points at; anything else is caught here
// instead of as trials that hang until their deadline.
import { GatewayConfigError } from "./errors.ts";
import type { EnvironmentRegistration } from "./types.ts";
import { isPlainObject } from "../python/pydantic/index.ts";

export interface GymGraphOptions {
  /**
   * True when trial state lives in a store every worker process shares (Redis). With a per-process store,
   * a second worker would receive callbacks for trials it has never heard of.
   */
  sharedState?: boolean;
}

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::"]);

export function validateGymGraph(
  config: Record<string, unknown>,
  gatewayInstanceName: string,
  registrations: readonly EnvironmentRegistration[],
  options: GymGraphOptions = {},
): void {
  if (config.observability_enabled !== true) {
    throw new GatewayConfigError("observability_enabled=true is required: it makes agents send model calls to /ng-rollout/<rollout_id>/…");
  }
  const gateway = singleServer(config[gatewayInstanceName], "responses_api_models");
  if (!gateway) {
    throw new GatewayConfigError(`Gateway instance ${JSON.stringify(gatewayInstanceName)} must be a responses_api_models server in the Gym config`);
  }
  const workers = gateway.num_workers;
  if (!options.sharedState && workers != null && Number(workers) !== 1) {
    throw new GatewayConfigError(
      `${gatewayInstanceName}.num_workers must be 1 unless NEMO_GYM_GATEWAY_STATE is a redis:// URL (trial state is per process)`,
    );
  }
  for (const registration of registrations) checkAgent(config, gatewayInstanceName, registration);
}

function checkAgent(config: Record<string, unknown>, gatewayName: string, registration: EnvironmentRegistration): void {
  const where = `Registration ${JSON.stringify(registration.config)}`;
  const agentName = registration.agent_name;
  if (agentName === null) throw new GatewayConfigError(`${where} needs an agent_name when the Gateway runs inside a Gym config`);
  const block = config[agentName];
  if (!isPlainObject(block)) throw new GatewayConfigError(`Registered Gym agent ${JSON.stringify(agentName)} is missing from the Gym config`);
  const agent = singleServer(block, "responses_api_agents");
  if (!agent) {
    throw new GatewayConfigError(`Registered Gym agent ${JSON.stringify(agentName)} must have exactly one responses_api_agents implementation`);
  }
  const modelServer = agent.model_server;
  if (!isPlainObject(modelServer) || modelServer.name !== gatewayName) {
    throw new GatewayConfigError(`Registered Gym agent ${JSON.stringify(agentName)} must use model_server.name ${JSON.stringify(gatewayName)} (the Gateway)`);
  }

  const url = new URL(registration.agent_url);
  const urlHost = stripBrackets(url.hostname.toLowerCase());
  const urlPort = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  const graphHost = effectiveHost(config, agent.host);
  const graphPort = agent.port == null || agent.port === "" ? null : Number(agent.port);
  if (graphPort === null) {
    // The launcher binds a port left unset to any free one, which agent_url cannot name in advance.
    throw new GatewayConfigError(`Registered Gym agent ${JSON.stringify(agentName)} needs a fixed port in the Gym config to match agent_url`);
  }
  if (!(WILDCARD_HOSTS.has(graphHost) || graphHost === urlHost) || graphPort !== urlPort) {
    throw new GatewayConfigError(
      `Registered Gym agent ${JSON.stringify(agentName)} listens on ${graphHost}:${graphPort}, which does not match ${where}.agent_url (${urlHost}:${urlPort})`,
    );
  }
}

/** The fields of `{<serverType>: {<implementation>: fields}}` when it has exactly one implementation. */
function singleServer(block: unknown, serverType: string): Record<string, unknown> | undefined {
  if (!isPlainObject(block)) return undefined;
  const implementations = block[serverType];
  if (!isPlainObject(implementations)) return undefined;
  const fields = Object.values(implementations);
  return fields.length === 1 && isPlainObject(fields[0]) ? fields[0] : undefined;
}

/** The launcher gives a server without a host the config's `default_host`. */
function effectiveHost(config: Record<string, unknown>, host: unknown): string {
  const given = typeof host === "string" && host !== "" ? host : config.default_host;
  return stripBrackets(typeof given === "string" && given !== "" ? given.toLowerCase() : "127.0.0.1");
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
