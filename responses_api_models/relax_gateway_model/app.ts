// relax_gateway_model: the Relax trial gateway hosted inside a Gym config as the agents' model server, as the
// reference deploys it. Agents (observability on) send every model call to /ng-rollout/<rollout_id>/v1/…, and the
// gateway forwards it to the Relax session that owns the trial; trainers reach the trial API on the same port.
import { z } from "zod";
import { defineServer } from "../../src/server/index.ts";
import { registerGatewayRoutes } from "../../src/gateway/app.ts";
import { startGatewayService } from "../../src/gateway/gateway.ts";
import { validateGymGraph } from "../../src/gateway/gym-graph.ts";
import { loadGatewaySettings, parseRegistrations, stateBackendOf } from "../../src/gateway/settings.ts";

const RelaxGatewayModelConfig = z.looseObject({
  /** Registrations keyed by config name (as NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON); else the environment variables. */
  environments: z.record(z.string(), z.unknown()).nullish(),
  /** SQLite file, `:memory:` or redis://…; else NEMO_GYM_GATEWAY_STATE. */
  state: z.string().nullish(),
  namespace: z.string().default("default"),
  lock_duration_s: z.number().positive().default(30),
});

export default defineServer({
  serverType: "responses_api_models",
  className: "RelaxGatewayModel",
  configSchema: RelaxGatewayModelConfig,
  async register(app, context) {
    const { config, instanceName } = context;
    const env = { ...process.env };
    if (config.state) env.NEMO_GYM_GATEWAY_STATE = config.state;
    const environments = config.environments ? parseRegistrations(config.environments, `${instanceName}.environments`) : undefined;
    const settings = loadGatewaySettings(env, environments ? { environments } : {});
    // Caught at start-up rather than as trials that hang until their deadline.
    validateGymGraph(context.globalConfig, instanceName, settings.environments, { sharedState: stateBackendOf(settings.stateUrl) === "redis" });
    const gateway = await startGatewayService({ settings, logger: context.log, namespace: config.namespace, lockDurationMs: config.lock_duration_s * 1000 });
    registerGatewayRoutes(app, { service: gateway.service, settings });
    app.addHook("onClose", gateway.close);
  },
});
