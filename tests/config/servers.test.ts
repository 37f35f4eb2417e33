// Server instances and references, defaults, secret masking, YAML in/out.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  ConfigError,
  PROJECT_ROOT,
  dumpYaml,
  fillDefaults,
  getServerInstanceConfig,
  listServerInstances,
  maskSecrets,
  parseConfigYaml,
  validateServerReferences,
  type ConfigDict,
} from "../../src/config/index.ts";
import { recordingLogger, tempProject, type TempProject } from "./fixtures.ts";

const resources = (domain: unknown = "agent") => ({ resources_servers: { my_env: { entrypoint: "app.py", domain } } });
const agent = (resourcesName: string, modelName = "policy_model") => ({
  responses_api_agents: {
    simple_agent: {
      entrypoint: "app.py",
      resources_server: { type: "resources_servers", name: resourcesName },
      model_server: { type: "responses_api_models", name: modelName },
    },
  },
});
const model = { responses_api_models: { openai_model: { entrypoint: "app.py" } } };

describe("listServerInstances", () => {
  let project: TempProject;
  let extra: TempProject;
  before(async () => {
    project = await tempProject({
      "resources_servers/my_env/app.ts": "",
      "responses_api_agents/simple_agent/app.py": "",
      "responses_api_models/openai_model/server.js": "",
    });
    extra = await tempProject({ "resources_servers/plugin_env/app.ts": "" });
  });
  after(async () => {
    await project.remove();
    await extra.remove();
  });

  const options = () => ({ rootDir: project.dir, cwd: project.dir, env: {} });

  it("returns one entry per instance with its type, implementation, fields and folder", () => {
    const config: ConfigDict = { my_env: resources(), agent: agent("my_env"), policy_model: model, policy_base_url: "x", head_server: { port: 1 } };
    const instances = listServerInstances(config, options());
    assert.deepEqual(
      instances.map(({ instanceName, serverType, implementation, dirPath }) => ({ instanceName, serverType, implementation, dirPath })),
      [
        { instanceName: "my_env", serverType: "resources_servers", implementation: "my_env", dirPath: project.path("resources_servers/my_env") },
        { instanceName: "agent", serverType: "responses_api_agents", implementation: "simple_agent", dirPath: project.path("responses_api_agents/simple_agent") },
        { instanceName: "policy_model", serverType: "responses_api_models", implementation: "openai_model", dirPath: project.path("responses_api_models/openai_model") },
      ],
    );
  });

  it("fields is the live implementation block of the config", () => {
    const config: ConfigDict = { my_env: resources() };
    const [instance] = listServerInstances(config, options());
    instance.fields.port = 4321;
    assert.equal(getServerInstanceConfig(config, "my_env").port, 4321);
  });

  it("maps entrypoint app.py to app.ts when app.py does not exist", () => {
    const [instance] = listServerInstances({ my_env: resources() }, options());
    assert.equal(instance.entrypointPath, project.path("resources_servers/my_env/app.ts"));
  });

  it("keeps app.py when that file exists", () => {
    const [instance] = listServerInstances({ agent: agent("x") }, options());
    assert.equal(instance.entrypointPath, project.path("responses_api_agents/simple_agent/app.py"));
  });

  it("uses a .ts/.js entrypoint as written", () => {
    const config = { policy_model: { responses_api_models: { openai_model: { entrypoint: "server.js" } } } };
    const [instance] = listServerInstances(config, options());
    assert.equal(instance.entrypointPath, project.path("responses_api_models/openai_model/server.js"));
  });

  it("finds implementations under extra roots (option and NEMO_GYM_EXTRA_ROOTS)", () => {
    const config = { plugin: { resources_servers: { plugin_env: { entrypoint: "app.py", domain: "other" } } } };
    const fromOption = listServerInstances(config, { ...options(), extraRoots: [extra.dir] });
    const fromEnv = listServerInstances(config, { ...options(), env: { NEMO_GYM_EXTRA_ROOTS: `/nonexistent:${extra.dir}` } });
    assert.equal(fromOption[0].entrypointPath, `${extra.dir}/resources_servers/plugin_env/app.ts`);
    assert.equal(fromEnv[0].dirPath, `${extra.dir}/resources_servers/plugin_env`);
  });

  it("falls back to <rootDir>/<type>/<implementation> when the folder is nowhere", () => {
    const config = { ghost: { resources_servers: { ghost_env: { entrypoint: "app.py", domain: "other" } } } };
    const [instance] = listServerInstances(config, options());
    assert.equal(instance.dirPath, project.path("resources_servers/ghost_env"));
    assert.equal(instance.entrypointPath, project.path("resources_servers/ghost_env/app.ts"));
  });

  it("ignores blocks that are not servers and reserved keys", () => {
    const config = { a: { b: { c: {} } }, c: 2, head_server: { host: "h" }, not_quite: { responses_api_models: { x: { no_entrypoint: 1 } } } };
    assert.deepEqual(listServerInstances(config, options()), []);
  });

  it("an almost-server (two implementations) is a ConfigError naming it", () => {
    const config = {
      broken: { responses_api_models: { openai_model: { entrypoint: "app.py" }, vllm_model: { entrypoint: "app.py" } } },
    };
    assert.throws(
      () => listServerInstances(config, options()),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.kind === "almost_server" &&
        error.message.includes("'broken'") &&
        error.message.includes("exactly one implementation") &&
        error.message.includes("error_on_almost_servers=false"),
    );
  });

  it("an almost-server with a bad domain or dataset license names the field", () => {
    const config = {
      env: resources("invalid_domain"),
      agent: {
        responses_api_agents: {
          simple_agent: { entrypoint: "app.py", datasets: [{ name: "train", type: "train", jsonl_fpath: "d.jsonl", license: "Invalid License" }] },
        },
      },
    };
    assert.throws(
      () => listServerInstances(config, options()),
      (error: unknown) => error instanceof ConfigError && /domain/.test(error.message) && /datasets -> 0 -> license/.test(error.message),
    );
  });

  it("a resources server without a domain is an almost-server", () => {
    assert.throws(() => listServerInstances({ env: { resources_servers: { my_env: { entrypoint: "app.py" } } } }, options()), /domain is required/);
  });

  it("error_on_almost_servers: false skips almost-servers with a warning", () => {
    const logger = recordingLogger();
    const config = {
      error_on_almost_servers: false,
      broken: { responses_api_models: { a: { entrypoint: "app.py" }, b: { entrypoint: "app.py" } } },
      my_env: resources(),
    };
    const instances = listServerInstances(config, { ...options(), logger });
    assert.deepEqual(instances.map((instance) => instance.instanceName), ["my_env"]);
    assert.equal(logger.warnings.length, 1);
    assert.match(logger.warnings[0], /Almost-server 'broken'/);
  });
});

describe("getServerInstanceConfig", () => {
  it("returns cfg[name] → first value → first value", () => {
    assert.deepEqual(getServerInstanceConfig({ a: { b: { c: { my_key: "my_value" }, d: null }, e: null }, f: null }, "a"), { my_key: "my_value" });
  });

  it("an unknown instance is a ConfigError with a suggestion", () => {
    assert.throws(
      () => getServerInstanceConfig({ policy_model: model }, "policy_modle"),
      (error: unknown) => error instanceof ConfigError && error.kind === "unknown_instance" && error.message.includes("Did you mean 'policy_model'?"),
    );
  });
});

describe("validateServerReferences", () => {
  it("accepts references to defined instances of the right type", () => {
    assert.doesNotThrow(() => validateServerReferences({ env: resources(), agent: agent("env"), policy_model: model }));
  });

  it("a reference to an undefined instance names the server, field and ref, with a did-you-mean hint", () => {
    assert.throws(
      () => validateServerReferences({ resources: resources(), agent_name: agent("resource"), policy_model: model }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.kind === "server_ref" &&
        error.message.includes("In server instance 'agent_name', field 'resources_server' references resources_servers/'resource'") &&
        error.message.includes("Did you mean 'resources'?"),
    );
  });

  it("a reference to an instance of another type says what it is", () => {
    assert.throws(
      () => validateServerReferences({ env: resources(), agent: agent("env", "env") }),
      (error: unknown) => error instanceof ConfigError && error.message.includes("'env' is defined, but as a resources_servers instance"),
    );
  });

  it("with no close name it lists the available instances", () => {
    assert.throws(() => validateServerReferences({ env: resources(), agent: agent("zzzzzzzz"), policy_model: model }), /Available resources_servers: 'env'/);
  });

  it("checks references nested anywhere, e.g. inside lists", () => {
    const config = {
      policy_model: model,
      agent: { responses_api_agents: { multi: { entrypoint: "app.py", judges: [{ type: "responses_api_models", name: "judge" }] } } },
    };
    assert.throws(() => validateServerReferences(config), /field 'judges\[0\]' references responses_api_models\/'judge'/);
  });
});

type ModelBlock = { responses_api_models: { openai_model: Record<string, unknown> } };
const server = (fields: Record<string, unknown> = {}): ModelBlock => ({ responses_api_models: { openai_model: { entrypoint: "app.py", ...fields } } });

describe("fillDefaults", () => {
  it("fills head_server, default_host, host, a null port and the port range", () => {
    const filled = fillDefaults({ policy_model: server() });
    assert.deepEqual(filled.head_server, { host: "127.0.0.1", port: 11000 });
    assert.equal(filled.default_host, "127.0.0.1");
    assert.deepEqual(filled.policy_model, server({ host: "127.0.0.1", port: null }));
    assert.equal(filled.port_range_low, 10001);
    assert.equal(filled.port_range_high, 20000);
    assert.deepEqual(filled.disallowed_ports, [11000]);
  });

  it("never picks a port: an absent port stays null", () => {
    const filled = fillDefaults({ a: server(), b: server({ port: 0 }) });
    assert.equal((filled.a as ModelBlock).responses_api_models.openai_model.port, null);
    assert.equal((filled.b as ModelBlock).responses_api_models.openai_model.port, null);
  });

  it("keeps given values and uses default_host for servers and the head server", () => {
    const filled = fillDefaults({ default_host: "0.0.0.0", head_server: { port: 12000 }, m: server({ host: "10.1.1.1", port: "9000" }), n: server() });
    assert.deepEqual(filled.head_server, { port: 12000, host: "0.0.0.0" });
    assert.deepEqual(filled.m, server({ host: "10.1.1.1", port: 9000 }));
    assert.equal((filled.n as ModelBlock).responses_api_models.openai_model.host, "0.0.0.0");
    assert.deepEqual(filled.disallowed_ports, [12000, 9000]);
  });

  it("copies the top-level skip_verification / skip_verification_reward into agents that set neither (NeMo Gym's rule)", () => {
    const agent = (fields: Record<string, unknown> = {}) => ({ responses_api_agents: { simple_agent: { entrypoint: "app.py", ...fields } } });
    const filled = fillDefaults({ skip_verification: true, skip_verification_reward: 0.25, a: agent(), b: agent({ skip_verification: false }), m: server() });
    assert.deepEqual((filled.a as any).responses_api_agents.simple_agent, { entrypoint: "app.py", host: "127.0.0.1", port: null, skip_verification: true, skip_verification_reward: 0.25 });
    assert.equal((filled.b as any).responses_api_agents.simple_agent.skip_verification, false, "the agent's own value wins");
    assert.equal((filled.b as any).responses_api_agents.simple_agent.skip_verification_reward, 0.25);
    assert.equal("skip_verification" in (filled.m as ModelBlock).responses_api_models.openai_model, false, "only agents");
    assert.equal("skip_verification" in ((fillDefaults({ a: agent() }).a as any).responses_api_agents.simple_agent), false, "unset: nothing");
  });

  it("does not touch non-server blocks or the input", () => {
    const input = { notes: { a: { b: {} } }, m: server() };
    const filled = fillDefaults(input);
    assert.deepEqual(filled.notes, { a: { b: {} } });
    assert.deepEqual(input.m, server());
  });
});

describe("maskSecrets", () => {
  it("masks values of keys containing token or key, in dicts and lists of dicts", () => {
    const masked = maskSecrets({
      dict: { key: "key", not: "not" },
      list: [{ key: "key", not: "not" }],
      key: "key",
      not: "not",
      hf_token: "hf_x",
      policy_api_key: "sk-1",
      OPENAI_API_KEY: "sk-2",
      policy_model_name: "gpt",
    });
    assert.deepEqual(masked, {
      dict: { key: "****", not: "not" },
      list: [{ key: "****", not: "not" }],
      key: "****",
      not: "not",
      hf_token: "****",
      policy_api_key: "****",
      OPENAI_API_KEY: "****",
      policy_model_name: "gpt",
    });
  });

  it("masks each element of a list under a secret key and searches a dict under one", () => {
    const masked = maskSecrets({ api_keys: ["a", "b"], key_config: { plain: 1, token: "t" } });
    assert.deepEqual(masked, { api_keys: ["****", "****"], key_config: { plain: 1, token: "****" } });
  });

  it("masks keys that say secret, password or authorization too, whatever their case", () => {
    const masked = maskSecrets({ client_secret: "s", DB_PASSWORD: "p", headers: { Authorization: "Bearer x", accept: "json" }, secretary: "also" });
    assert.deepEqual(masked, { client_secret: "****", DB_PASSWORD: "****", headers: { Authorization: "****", accept: "json" }, secretary: "****" });
  });

  it("returns a copy", () => {
    const input = { api_key: "sk" };
    maskSecrets(input);
    assert.equal(input.api_key, "sk");
  });
});

describe("parseConfigYaml / dumpYaml", () => {
  it("a syntax error is a ConfigError with the source, line and column", () => {
    assert.throws(
      () => parseConfigYaml("foo: [1, 2\nbar: : :\n", "/configs/bad.yaml"),
      (error: unknown) =>
        error instanceof ConfigError && error.kind === "yaml_syntax" && /^Malformed YAML in '\/configs\/bad.yaml' at line 2, column \d+: /.test(error.message),
    );
  });

  it("a duplicate key is an error with its line", () => {
    assert.throws(() => parseConfigYaml("a: 1\nb: 2\na: 3\n"), /line 3/);
  });

  it("a top-level list is rejected, an empty file is {}", () => {
    assert.throws(() => parseConfigYaml("- a\n"), /must be a YAML mapping/);
    assert.deepEqual(parseConfigYaml("# only a comment\n"), {});
  });

  it("reads scalars like PyYAML: yes/on are booleans, dates and versions stay strings, y/n stay strings", () => {
    assert.deepEqual(parseConfigYaml("a: yes\nb: off\nc: 2024-01-01\nd: 0.0.1\ne: y\nf: ???\ng: ${x}\nh: ~\n"), {
      a: true,
      b: false,
      c: "2024-01-01",
      d: "0.0.1",
      e: "y",
      f: "???",
      g: "${x}",
      h: null,
    });
  });

  it("reads floats like OmegaConf: a float needs a digit (a lone . is a string), 1e5 and 1_0.5 are floats", () => {
    assert.deepEqual(parseConfigYaml("a: .\nb: -.\nc: .5\nd: 1.\ne: 1e5\nf: 1_0.5\ng: -.inf\nh: 1.5e-3\n"), {
      a: ".",
      b: "-.",
      c: 0.5,
      d: 1,
      e: 100000,
      f: 10.5,
      g: -Infinity,
      h: 0.0015,
    });
    assert.ok(Number.isNaN(parseConfigYaml("n: .nan\n").n));
    assert.deepEqual(parseConfigYaml(dumpYaml({ match: "." })), { match: "." });
  });

  it("supports anchors and merge keys", () => {
    assert.deepEqual(parseConfigYaml("base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n").derived, { x: 1, y: 2 });
  });

  it("dumps text that parses back to the same config, interpolations and ??? intact", () => {
    const shared = { k: 1 };
    const config = { url: "${policy_base_url}", s: "yes", n: null, list: [1, "2"], empty: {}, missing: "???", a: shared, b: shared, multi: "a\nb" };
    const text = dumpYaml(config);
    assert.ok(!text.includes("&"), "no YAML anchors for shared objects");
    assert.deepEqual(parseConfigYaml(text), config);
  });
});

describe("PROJECT_ROOT", () => {
  it("is the repository root", () => {
    assert.ok(existsSync(join(PROJECT_ROOT, "package.json")));
    assert.ok(existsSync(join(PROJECT_ROOT, "src", "config", "index.ts")));
  });
});
