import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  ConfigError,
  NO_MODEL_CONFIG,
  getServerInstanceConfig,
  listServerInstances,
  loadGlobalConfig,
  type ConfigDict,
} from "../../src/config/index.ts";
import {
  ENV_YAML,
  OPENAI_MODEL_YAML,
  RESOURCES_SERVER_YAML,
  SIMPLE_AGENT_YAML,
  recordingLogger,
  tempProject,
  yaml,
} from "./fixtures.ts";

/** A project root plus a separate working directory, both temp dirs; no process.env, no real env.yaml. */
async function setup(rootFiles: Record<string, string>, cwdFiles: Record<string, string> = {}) {
  const root = await tempProject(rootFiles);
  const cwd = await tempProject(cwdFiles);
  const logger = recordingLogger();
  const load = (options: Parameters<typeof loadGlobalConfig>[0] = {}) =>
    loadGlobalConfig({ rootDir: root.dir, cwd: cwd.dir, env: {}, logger, ...options });
  return { root, cwd, logger, load, cleanup: () => Promise.all([root.remove(), cwd.remove()]) };
}

const fields = (config: ConfigDict, instance: string) => getServerInstanceConfig(config, instance);

describe("loadGlobalConfig: the example graph (resources server + simple_agent + openai_model)", () => {
  let env: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    env = await setup(
      {
        "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml": RESOURCES_SERVER_YAML,
        "resources_servers/example_single_tool_call/app.ts": "",
        "responses_api_agents/simple_agent/app.ts": "",
        "responses_api_models/openai_model/configs/openai_model.yaml": OPENAI_MODEL_YAML,
        "responses_api_models/openai_model/app.ts": "",
      },
      { "env.yaml": ENV_YAML },
    );
  });
  after(() => env.cleanup());

  const configPaths = [
    "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml",
    "responses_api_models/openai_model/configs/openai_model.yaml",
  ];

  it("resolves ${policy_*} from env.yaml and oc.env defaults into the model server", async () => {
    const { resolved } = await env.load({ configPaths, requireServers: true });
    assert.deepEqual(fields(resolved, "policy_model"), {
      entrypoint: "app.py",
      openai_base_url: "https://api.example.com/v1",
      openai_api_key: "sk-test-secret",
      openai_model: "gpt-test",
      openai_default_headers: {},
      drop_input_reasoning_items: "false",
      host: "127.0.0.1",
      port: null,
    });
  });

  it("oc.env reads the given environment", async () => {
    const { resolved } = await env.load({ configPaths, env: { POLICY_DROP_REASONING_ITEMS: "true" } });
    assert.equal(fields(resolved, "policy_model").drop_input_reasoning_items, "true");
  });

  it("raw keeps the interpolations (for the head server) but has the defaults", async () => {
    const { raw } = await env.load({ configPaths });
    const model = fields(raw, "policy_model");
    assert.equal(model.openai_base_url, "${policy_base_url}");
    assert.equal(model.drop_input_reasoning_items, "${oc.env:POLICY_DROP_REASONING_ITEMS,false}");
    assert.equal(model.host, "127.0.0.1");
    assert.equal(model.port, null);
    assert.deepEqual(raw.head_server, { host: "127.0.0.1", port: 11000 });
  });

  it("records config_paths and finds all three servers on disk", async () => {
    const { resolved } = await env.load({ configPaths });
    assert.deepEqual(resolved.config_paths, configPaths);
    const instances = listServerInstances(resolved, { rootDir: env.root.dir, cwd: env.cwd.dir, env: {} });
    assert.deepEqual(
      instances.map((instance) => [instance.instanceName, instance.entrypointPath]),
      [
        ["example_single_tool_call", env.root.path("resources_servers/example_single_tool_call/app.ts")],
        ["example_single_tool_call_simple_agent", env.root.path("responses_api_agents/simple_agent/app.ts")],
        ["policy_model", env.root.path("responses_api_models/openai_model/app.ts")],
      ],
    );
  });

  it("the same graph via +config_paths=[...] and a --model style override", async () => {
    const { resolved } = await env.load({ overrides: [`+config_paths=[${configPaths.join(",")}]`, "+policy_model_name=gpt-cli"] });
    assert.equal(fields(resolved, "policy_model").openai_model, "gpt-cli");
  });

  it("without the model config, the agent's policy_model reference is reported", async () => {
    await assert.rejects(env.load({ configPaths: configPaths.slice(0, 1) }), (error: unknown) => {
      return error instanceof ConfigError && error.kind === "server_ref" && error.message.includes("responses_api_models/'policy_model'");
    });
  });
});

describe("loadGlobalConfig: merge order", () => {
  let env: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    env = await setup(
      {
        "layers.yaml": yaml`
          from_file: file
          env_beats_file: file
          cli_beats_env: file
          nested: {a: 1, b: 1}
          list: [1, 2, 3]
        `,
        "parent.yaml": yaml`
          config_paths: [child.yaml]
          value: parent
          nested: {from_parent: 1}
        `,
        "child.yaml": yaml`
          config_paths: [grandchild.yaml]
          value: child
          only_child: 1
          nested: {from_child: 1, from_parent: 0}
        `,
        "grandchild.yaml": yaml`
          value: grandchild
          only_grandchild: 1
        `,
        "first.yaml": yaml`
          sibling: first
          list: [1, 2, 3]
        `,
        "second.yaml": yaml`
          config_paths: [second_child.yaml]
        `,
        "second_child.yaml": yaml`
          sibling: second_child
          list: [9]
        `,
      },
      {
        "env.yaml": yaml`
          env_beats_file: env
          cli_beats_env: env
          nested: {b: 2}
        `,
      },
    );
  });
  after(() => env.cleanup());

  it("command line > env.yaml > config files, merging dicts key by key", async () => {
    const { resolved } = await env.load({ configPaths: ["layers.yaml"], overrides: ["++cli_beats_env=cli"] });
    assert.equal(resolved.from_file, "file");
    assert.equal(resolved.env_beats_file, "env");
    assert.equal(resolved.cli_beats_env, "cli");
    assert.deepEqual(resolved.nested, { a: 1, b: 2 });
  });

  it("an including file overrides what it includes, however deep (HEAD order)", async () => {
    const { resolved } = await env.load({ configPaths: ["parent.yaml"] });
    assert.equal(resolved.value, "parent");
    assert.equal(resolved.only_child, 1);
    assert.equal(resolved.only_grandchild, 1);
    assert.deepEqual(resolved.nested, { from_child: 1, from_parent: 1, b: 2 }); // b: from env.yaml
    assert.deepEqual(resolved.config_paths, ["parent.yaml", "child.yaml", "grandchild.yaml"]);
  });

  it("a later sibling, with everything it includes, overrides an earlier one", async () => {
    const { resolved } = await env.load({ configPaths: ["first.yaml", "second.yaml"] });
    assert.equal(resolved.sibling, "second_child");
  });

  it("lists are replaced, not merged", async () => {
    const { resolved } = await env.load({ configPaths: ["first.yaml", "second.yaml"] });
    assert.deepEqual(resolved.list, [9]);
    const fromCli = await env.load({ configPaths: ["layers.yaml"], overrides: ["++list=[7]"] });
    assert.deepEqual(fromCli.resolved.list, [7]);
  });

  it("configPaths and +config_paths are combined, in that order", async () => {
    const { resolved } = await env.load({ configPaths: ["first.yaml"], overrides: ["+config_paths=[second.yaml]"] });
    assert.equal(resolved.sibling, "second_child");
    assert.deepEqual(resolved.config_paths, ["first.yaml", "second.yaml", "second_child.yaml"]);
  });
});

describe("loadGlobalConfig: config_paths", () => {
  let env: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    env = await setup(
      {
        "configs/a.yaml": "config_paths: [configs/common.yaml]\na: 1\n",
        "configs/b.yaml": "config_paths: [configs/common.yaml, configs/a.yaml]\nb: 1\n",
        "configs/common.yaml": "common: 1\n",
        "configs/loop_x.yaml": "config_paths: [configs/loop_y.yaml]\nx: 1\n",
        "configs/loop_y.yaml": "config_paths: [configs/loop_x.yaml]\ny: 1\n",
        "configs/shadowed.yaml": "where: root\n",
        "configs/broken.yaml": "model:\n  name: [oops\n  other: 1\n",
        "configs/includes_missing.yaml": "config_paths: [configs/nope.yaml]\n",
        "configs/bad_list.yaml": "config_paths: configs/a.yaml\n",
      },
      { "configs/shadowed.yaml": "where: cwd\n" },
    );
  });
  after(() => env.cleanup());

  it("loads included files recursively, each once, warning about repeats", async () => {
    const { resolved } = await env.load({ configPaths: ["configs/a.yaml", "configs/b.yaml"] });
    assert.deepEqual([resolved.a, resolved.b, resolved.common], [1, 1, 1]);
    assert.deepEqual(resolved.config_paths, ["configs/a.yaml", "configs/b.yaml", "configs/common.yaml"]);
    assert.equal(env.logger.warnings.filter((warning) => warning.includes("configs/common.yaml")).length, 1);
  });

  it("survives include cycles", async () => {
    const { resolved } = await env.load({ configPaths: ["configs/loop_x.yaml"] });
    assert.deepEqual([resolved.x, resolved.y], [1, 1]);
  });

  it("paths are relative to cwd first, then the project root", async () => {
    assert.equal((await env.load({ configPaths: ["configs/shadowed.yaml"] })).resolved.where, "cwd");
    assert.equal((await env.load({ configPaths: ["configs/common.yaml"] })).resolved.common, 1);
  });

  it("extra roots come before cwd", async () => {
    const extra = await tempProject({ "configs/shadowed.yaml": "where: extra\n" });
    try {
      const viaEnv = await env.load({ configPaths: ["configs/shadowed.yaml"], env: { NEMO_GYM_EXTRA_ROOTS: extra.dir } });
      const viaOption = await env.load({ configPaths: ["configs/shadowed.yaml"], extraRoots: [extra.dir] });
      assert.equal(viaEnv.resolved.where, "extra");
      assert.equal(viaOption.resolved.where, "extra");
    } finally {
      await extra.remove();
    }
  });

  it("a missing file is a ConfigError listing where it looked", async () => {
    await assert.rejects(env.load({ configPaths: ["configs/typo.yaml"] }), (error: unknown) => {
      return (
        error instanceof ConfigError &&
        error.kind === "file_not_found" &&
        error.message.includes(env.cwd.path("configs/typo.yaml")) &&
        error.message.includes(env.root.path("configs/typo.yaml"))
      );
    });
  });

  it("a missing included file names the file that lists it", async () => {
    await assert.rejects(env.load({ configPaths: ["configs/includes_missing.yaml"] }), (error: unknown) => {
      return error instanceof ConfigError && error.message.includes(`(listed in '${env.root.path("configs/includes_missing.yaml")}')`);
    });
  });

  it("a YAML syntax error names the file and the line", async () => {
    await assert.rejects(env.load({ configPaths: ["configs/broken.yaml"] }), (error: unknown) => {
      return (
        error instanceof ConfigError &&
        error.kind === "yaml_syntax" &&
        error.message.startsWith(`Malformed YAML in '${env.root.path("configs/broken.yaml")}' at line 3`)
      );
    });
  });

  it("config_paths that is not a list is a ConfigError", async () => {
    await assert.rejects(env.load({ overrides: ["+config_paths=configs/a.yaml"] }), (error: unknown) => {
      return error instanceof ConfigError && error.kind === "malformed_config_paths" && /must be a list/.test(error.message);
    });
    await assert.rejects(env.load({ configPaths: ["configs/bad_list.yaml"] }), /bad_list.yaml.*must be a list/s);
  });
});

describe("loadGlobalConfig: env.yaml", () => {
  it("is read from cwd before the project root, and can hold config_paths (even interpolated)", async () => {
    const env = await setup(
      { "env.yaml": "from: root\n", "m.yaml": "m: 1\n" },
      { "env.yaml": "from: cwd\nmy_config_paths: [m.yaml]\nconfig_paths: ${my_config_paths}\n" },
    );
    try {
      const { resolved } = await env.load();
      assert.equal(resolved.from, "cwd");
      assert.equal(resolved.m, 1);
      assert.deepEqual(resolved.config_paths, ["m.yaml"]);
    } finally {
      await env.cleanup();
    }
  });

  it("falls back to the project root; a command-line list replaces env.yaml's config_paths", async () => {
    const env = await setup({ "env.yaml": "from: root\nconfig_paths: [m.yaml]\n", "m.yaml": "m: 1\n", "n.yaml": "n: 1\n" });
    try {
      const { resolved } = await env.load({ configPaths: ["n.yaml"] });
      assert.equal(resolved.from, "root");
      assert.equal(resolved.n, 1);
      assert.equal(resolved.m, undefined);
    } finally {
      await env.cleanup();
    }
  });

  it("a syntax error in env.yaml names it", async () => {
    const env = await setup({}, { "env.yaml": "policy_api_key: [oops\n" });
    try {
      await assert.rejects(env.load(), (error: unknown) => error instanceof ConfigError && error.message.includes(env.cwd.path("env.yaml")) && /line \d+/.test(error.message));
    } finally {
      await env.cleanup();
    }
  });

  it("envYamlPath: null skips it", async () => {
    const env = await setup({}, { "env.yaml": "from: cwd\n" });
    try {
      assert.equal((await env.load({ envYamlPath: null })).resolved.from, undefined);
    } finally {
      await env.cleanup();
    }
  });
});

describe("loadGlobalConfig: overrides", () => {
  let env: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    env = await setup(
      {
        "base.yaml": yaml`
          policy_model_name: from_file
          responses_create_params: {temperature: 1.0, max_output_tokens: 100}
          drop_me: 1
        `,
      },
      { "env.yaml": "policy_model_name: from_env\n" },
    );
  });
  after(() => env.cleanup());

  it("+key adds on the command line even when a file or env.yaml already sets it", async () => {
    const { resolved } = await env.load({ configPaths: ["base.yaml"], overrides: ["+policy_model_name=cli"] });
    assert.equal(resolved.policy_model_name, "cli");
  });

  it("+key twice on the command line is an error", async () => {
    await assert.rejects(env.load({ overrides: ["+a=1", "+a=2"] }), /'\+\+a=\.\.\.'/);
  });

  it("++ merges one nested key into a dict from a file", async () => {
    const { resolved } = await env.load({ configPaths: ["base.yaml"], overrides: ["++responses_create_params.temperature=0.7"] });
    assert.deepEqual(resolved.responses_create_params, { temperature: 0.7, max_output_tokens: 100 });
  });

  it("+key={dict} adds a dict", async () => {
    const { resolved } = await env.load({ overrides: ["+num_repeats={agent_a: 2, _default: 1}"] });
    assert.deepEqual(resolved.num_repeats, { agent_a: 2, _default: 1 });
  });

  it("plain key=value replaces a key that a file sets", async () => {
    const { resolved } = await env.load({ configPaths: ["base.yaml"], overrides: ["responses_create_params.max_output_tokens=5"] });
    assert.deepEqual(resolved.responses_create_params, { temperature: 1, max_output_tokens: 5 });
  });

  it("plain key=value on a key nobody sets is an error suggesting +", async () => {
    await assert.rejects(env.load({ configPaths: ["base.yaml"], overrides: ["temperature=0.5"] }), (error: unknown) => {
      return error instanceof ConfigError && error.kind === "override" && error.message.includes("'+temperature=...'");
    });
  });

  it("~key deletes a key a file sets", async () => {
    const { resolved } = await env.load({ configPaths: ["base.yaml"], overrides: ["~drop_me"] });
    assert.equal("drop_me" in resolved, false);
  });

  it("an override value may interpolate", async () => {
    const { resolved } = await env.load({ configPaths: ["base.yaml"], overrides: ["+label=model-${policy_model_name}"] });
    assert.equal(resolved.label, "model-from_env");
  });
});

describe("loadGlobalConfig: checks after merging", () => {
  let env: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    env = await setup({
      "responses_api_agents/simple_agent/configs/simple_agent.yaml": SIMPLE_AGENT_YAML,
      "model.yaml": yaml`
        policy_model:
          responses_api_models:
            openai_model:
              entrypoint: app.py
              openai_api_key: ???
      `,
      "env_server.yaml": yaml`
        my_env:
          resources_servers:
            my_env:
              entrypoint: app.py
              domain: agent
      `,
      "name_set.yaml": yaml`
        simple_agent:
          responses_api_agents:
            simple_agent:
              resources_server: {name: my_env}
      `,
      "almost.yaml": yaml`
        broken:
          responses_api_models:
            openai_model: {entrypoint: app.py}
            vllm_model: {entrypoint: app.py}
      `,
      "generic.yaml": yaml`
        generic_model:
          responses_api_models:
            openai_model: {entrypoint: app.py, openai_model: base}
      `,
    });
  });
  after(() => env.cleanup());

  it("every ??? is reported in one error", async () => {
    await assert.rejects(
      env.load({ configPaths: ["responses_api_agents/simple_agent/configs/simple_agent.yaml", "model.yaml"] }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.kind === "missing_values" &&
        error.message.includes("2 required") &&
        error.message.includes("simple_agent.responses_api_agents.simple_agent.resources_server.name") &&
        error.message.includes("policy_model.responses_api_models.openai_model.openai_api_key"),
    );
  });

  it("a ??? merged later does not erase a value set earlier", async () => {
    const { resolved } = await env.load({
      configPaths: ["name_set.yaml", "responses_api_agents/simple_agent/configs/simple_agent.yaml", "env_server.yaml", "model.yaml"],
      overrides: ["++policy_model.responses_api_models.openai_model.openai_api_key=sk"],
    });
    assert.deepEqual(fields(resolved, "simple_agent").resources_server, { type: "resources_servers", name: "my_env" });
  });

  it("an unset value can be filled by an override", async () => {
    const { resolved } = await env.load({
      configPaths: ["responses_api_agents/simple_agent/configs/simple_agent.yaml", "env_server.yaml", "model.yaml"],
      overrides: ["++simple_agent.responses_api_agents.simple_agent.resources_server.name=my_env", "++policy_model.responses_api_models.openai_model.openai_api_key=sk"],
    });
    assert.equal((fields(resolved, "simple_agent").resources_server as ConfigDict).name, "my_env");
  });

  it("a wrong reference gets a did-you-mean hint", async () => {
    await assert.rejects(
      env.load({
        configPaths: ["responses_api_agents/simple_agent/configs/simple_agent.yaml", "env_server.yaml", "model.yaml"],
        overrides: ["++simple_agent.responses_api_agents.simple_agent.resources_server.name=my_evn", "++policy_model.responses_api_models.openai_model.openai_api_key=sk"],
      }),
      (error: unknown) => error instanceof ConfigError && error.kind === "server_ref" && error.message.includes("Did you mean 'my_env'?"),
    );
  });

  it("an almost-server fails the load unless error_on_almost_servers=false", async () => {
    await assert.rejects(env.load({ configPaths: ["almost.yaml"] }), (error: unknown) => error instanceof ConfigError && error.kind === "almost_server");
    const { resolved } = await env.load({ configPaths: ["almost.yaml", "env_server.yaml"], overrides: ["+error_on_almost_servers=false"] });
    assert.ok(resolved.broken);
    assert.ok(env.logger.warnings.some((warning) => warning.includes("'broken'")));
  });

  it("requireServers rejects a config without server instances", async () => {
    await assert.rejects(env.load({ requireServers: true }), (error: unknown) => error instanceof ConfigError && error.kind === "no_server_instances");
    await assert.doesNotReject(env.load({ requireServers: true, configPaths: ["env_server.yaml"] }));
  });

  it("directives given on the command line apply: ${copy:...} keeps the source, ${inherit_from:...} moves it", async () => {
    const copied = await env.load({ configPaths: ["generic.yaml"], overrides: ["++judge_model=${copy:generic_model}"] });
    assert.equal(fields(copied.resolved, "judge_model").openai_model, "base");
    assert.ok(copied.resolved.generic_model);
    const inherited = await env.load({
      configPaths: ["generic.yaml"],
      overrides: ["++judge_model._inherit_from=generic_model", "++judge_model.responses_api_models.openai_model.openai_model=judge"],
    });
    assert.equal(fields(inherited.resolved, "judge_model").openai_model, "judge");
    assert.equal(inherited.resolved.generic_model, undefined);
    assert.equal(inherited.raw.generic_model, undefined);
  });

  it("a missing interpolation key names the key and where it is used", async () => {
    await assert.rejects(env.load({ overrides: ["+url=${policy_base_url}/v1"] }), (error: unknown) => {
      return error instanceof ConfigError && error.kind === "interpolation" && error.message.includes("'url'") && error.message.includes("'policy_base_url'");
    });
  });
});

describe("loadGlobalConfig: NO_MODEL_CONFIG (commands that need no model)", () => {
  let env: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    env = await setup({ "model.yaml": OPENAI_MODEL_YAML });
  });
  after(() => env.cleanup());

  it("provides a placeholder policy_model", async () => {
    const { resolved } = await env.load({ initialConfig: NO_MODEL_CONFIG });
    assert.deepEqual(Object.keys((resolved.policy_model as ConfigDict).responses_api_models as ConfigDict), ["dummy_model"]);
  });

  it("the placeholder merges away when a real model is configured", async () => {
    const { resolved } = await env.load({ initialConfig: NO_MODEL_CONFIG, configPaths: ["model.yaml"] });
    assert.deepEqual(Object.keys((resolved.policy_model as ConfigDict).responses_api_models as ConfigDict), ["openai_model"]);
  });

  it("+key still adds over a key the initial config sets", async () => {
    const { resolved } = await env.load({ initialConfig: NO_MODEL_CONFIG, overrides: ["+policy_base_url=http://x"] });
    assert.equal(resolved.policy_base_url, "http://x");
  });
});
