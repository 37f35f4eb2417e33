// The Gym-config check of a Gateway running as the agents' model server (spec §1.6; reference tests 70–72).
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateGymGraph } from "../../src/gateway/gym-graph.ts";
import { GatewayConfigError, loadGatewaySettings } from "../../src/gateway/settings.ts";

const { environments } = loadGatewaySettings({
  NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({
    "multi-step-v1": { environment: "multi_step", agent_name: "example_multi_step_simple_agent", agent_url: "http://127.0.0.1:10001" },
  }),
  NEMO_GYM_CALLBACK_ALLOWED_HOSTS: "relax-head",
});

function graph(agentFields: Record<string, unknown> = {}, top: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    observability_enabled: true,
    policy_model: { responses_api_models: { relax_gateway_model: { entrypoint: "app.py", host: "127.0.0.1", port: 10000 } } },
    example_multi_step_simple_agent: {
      responses_api_agents: {
        simple_agent: {
          entrypoint: "app.py",
          host: "127.0.0.1",
          port: 10001,
          model_server: { type: "responses_api_models", name: "policy_model" },
          ...agentFields,
        },
      },
    },
    ...top,
  };
}

const refuses = (config: Record<string, unknown>, pattern: RegExp, options = {}) =>
  assert.throws(
    () => validateGymGraph(config, "policy_model", environments, options),
    (error: unknown) => error instanceof GatewayConfigError && pattern.test(error.message),
  );

test("gym_graph_validation_requires_prefix_and_request_scoped_gateway_model", () => {
  validateGymGraph(graph(), "policy_model", environments);

  refuses(graph({}, { observability_enabled: false }), /observability_enabled/);
  refuses(graph({}, { observability_enabled: undefined }), /observability_enabled/);
  refuses(graph({ model_server: { type: "responses_api_models", name: "openai_model" } }), /model_server\.name "policy_model"/);
  refuses(graph({}, { example_multi_step_simple_agent: undefined }), /"example_multi_step_simple_agent" is missing/);
  const twoImplementations = graph();
  (twoImplementations.example_multi_step_simple_agent as { responses_api_agents: Record<string, unknown> }).responses_api_agents.other_agent = { port: 1 };
  refuses(twoImplementations, /exactly one responses_api_agents/);
  refuses(graph({}, { policy_model: undefined }), /Gateway instance "policy_model" must be a responses_api_models server/);
});

test("gym_graph_validation_requires_prebuilt_server_environments (TS launcher: no venvs or Ray; agents need a fixed port)", () => {
  // Neither ray_head_node_address nor skip_venv_if_present applies to the TypeScript launcher.
  validateGymGraph(graph({}, { skip_venv_if_present: false }), "policy_model", environments);
  // A port left to the launcher is chosen at startup, so no agent_url can name it in advance.
  refuses(graph({ port: null }), /needs a fixed port/);
  refuses(graph({ port: undefined }), /needs a fixed port/);
});

test("gym_graph_validation_allows_wildcard_bind_host", () => {
  validateGymGraph(graph({ host: "0.0.0.0" }), "policy_model", environments);
  validateGymGraph(graph({ host: "::" }), "policy_model", environments);
  validateGymGraph(graph({ port: "10001" }), "policy_model", environments);
  refuses(graph({ host: "10.0.0.5" }), /listens on 10\.0\.0\.5:10001, which does not match Registration "multi-step-v1"\.agent_url \(127\.0\.0\.1:10001\)/);
  refuses(graph({ port: 10002 }), /does not match/);
});

test("an agent without a host gets the config's default_host, as the launcher does", () => {
  validateGymGraph(graph({ host: undefined }), "policy_model", environments);
  refuses(graph({ host: undefined }, { default_host: "10.0.0.5" }), /listens on 10\.0\.0\.5/);
});

test("one Gateway worker unless trial state is shared through Redis", () => {
  const twoWorkers = graph({}, { policy_model: { responses_api_models: { relax_gateway_model: { entrypoint: "app.py", num_workers: 2 } } } });
  refuses(twoWorkers, /policy_model\.num_workers must be 1/);
  validateGymGraph(twoWorkers, "policy_model", environments, { sharedState: true });
  validateGymGraph(graph({}, { policy_model: { responses_api_models: { relax_gateway_model: { num_workers: 1 } } } }), "policy_model", environments);
});

test("a registration without agent_name cannot be checked against the graph", () => {
  assert.throws(() => validateGymGraph(graph(), "policy_model", [{ ...environments[0], agent_name: null }]), /needs an agent_name/);
});
