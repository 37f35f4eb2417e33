// Every key of an instance's config is known, refused by name, or warned about: the table of NeMo Gym's config
// fields per ported server (src/testing/nemo-config-fields.ts) is covered, refused keys fail the start, unknown keys
// warn, and a server without a fixed port binds inside port_range_low..port_range_high.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import {
  BASE_CONFIG_KEYS,
  checkInstanceConfig,
  knownKeysOf,
  refusedKeysOf,
  resourcesServer,
  responsesApiModel,
  schemaKeys,
  ServerConfigError,
  startServer,
} from "../../src/server/index.ts";
import { NEMO_GYM_CONFIG_FIELDS, serverDefinition, testConfig } from "../../src/testing/index.ts";

/** Servers of this project with no NeMo Gym counterpart. */
const OURS = ["responses_api_models/scripted_model", "responses_api_models/relax_gateway_model"];

test("every NeMo Gym config field of every ported server is implemented (in its schema or a base key) or refused by name", async () => {
  const uncovered: string[] = [];
  for (const [folder, fields] of Object.entries(NEMO_GYM_CONFIG_FIELDS)) {
    const definition = folder.endsWith(".ts") ? await serverDefinition(dirname(folder), basename(folder)) : await serverDefinition(folder);
    const known = knownKeysOf(definition);
    const refused = refusedKeysOf(definition);
    for (const field of fields) if (!known.has(field) && !Object.hasOwn(refused, field)) uncovered.push(`${folder}: ${field}`);
  }
  assert.deepEqual(uncovered, []);
});

test("the table lists every server folder of the project (a newly ported server needs its NeMo Gym fields written down)", () => {
  const folders = ["resources_servers", "responses_api_agents", "responses_api_models"].flatMap((type) =>
    readdirSync(join(PROJECT_ROOT, type)).filter((name) => existsSync(join(PROJECT_ROOT, type, name, "app.ts"))).map((name) => `${type}/${name}`),
  );
  // A folder of one entrypoint per config class (langgraph_agent) lists each file; each must exist (loaded above).
  folders.push(...Object.keys(NEMO_GYM_CONFIG_FIELDS).filter((key) => key.endsWith(".ts") && existsSync(join(PROJECT_ROOT, key))));
  assert.deepEqual(folders.filter((f) => !OURS.includes(f)).sort(), Object.keys(NEMO_GYM_CONFIG_FIELDS).sort());
});

test("schemaKeys sees through intersections, unions, pipes and defaults", () => {
  const schema = z.looseObject({ a: z.string() }).and(z.union([z.looseObject({ b: z.number() }), z.looseObject({ c: z.boolean() }).transform((v) => v)]).default({ b: 1 }));
  assert.deepEqual([...schemaKeys(schema)].sort(), ["a", "b", "c"]);
});

const model = responsesApiModel({
  name: "KeysModel",
  config: z.looseObject({ temperature: z.number().default(1) }),
  refusedConfigKeys: { magic_mode: "magic is not ported" },
  async responses() {
    throw new Error("never called");
  },
});
const check = (fields: Record<string, unknown>) => {
  const { config } = testConfig({ policy_model: [model, fields] });
  return checkInstanceConfig(model, "policy_model", (config.policy_model as any).responses_api_models.test, config);
};

test("a refused key set to a value fails with one line naming the instance, the key and why; null or false asks for nothing", () => {
  assert.throws(
    () => check({ magic_mode: "on" }),
    (error: unknown) => error instanceof ServerConfigError && error.message === "test 'policy_model': config key `magic_mode` is not implemented here (magic is not ported)",
  );
  assert.deepEqual(check({ magic_mode: null }).warnings, []);
  assert.deepEqual(check({ magic_mode: false }).warnings, []);
});

test("an unknown key is a warning naming it and the instance; base and catalog keys NeMo Gym accepts are not", () => {
  const { warnings, config } = check({ temprature: 0.5, temperature: 0.2 });
  assert.deepEqual(warnings, ["test 'policy_model': config key `temprature` is not one this server reads, so it has no effect (misspelt, or meant for another server?)"]);
  assert.equal((config as { temperature: number }).temperature, 0.2);
  const metadata = { description: "d", value: "v", verified: false, verified_url: null, license: "MIT", datasets: [], num_workers: 1, name: "x", domain: "other", max_body_bytes: 1000 };
  assert.deepEqual(check(metadata).warnings, []);
  for (const key of Object.keys(metadata)) assert.ok(BASE_CONFIG_KEYS.has(key), key);
  assert.deepEqual(check({ num_workers: 4 }).warnings, ["test 'policy_model': num_workers 4 is served by one process here (its event loop runs requests concurrently)"]);
});

test("agents refuse token_id_capture: true (NeMo Gym's base agent key; no token-id capture sink here)", async () => {
  const agent = await serverDefinition("responses_api_agents/simple_agent");
  const refs = { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" } };
  const { config } = testConfig({ agent: [agent, { ...refs, token_id_capture: true }] });
  assert.throws(() => checkInstanceConfig(agent, "agent", (config.agent as any).responses_api_agents.test, config), /config key `token_id_capture` is not implemented here/);
});

const environment = resourcesServer({ name: "PortsResourcesServer", tools: {}, verify: { run: () => 1 } });

/** A base port p with p, p+1 and p+2 all free right now. */
async function threeFreePorts(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 40_000 + Math.floor(Math.random() * 9_000);
    const held: Server[] = [];
    try {
      for (let port = base; port < base + 3; port++) held.push(await listen(port));
      return base;
    } catch {
      // taken: try another base
    } finally {
      await Promise.all(held.map((s) => new Promise((resolve) => s.close(resolve))));
    }
  }
  throw new Error("no three free consecutive ports");
}
const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

test("port_range_low / port_range_high: a server without a fixed port binds in the range, skipping disallowed and taken ports", async () => {
  const base = await threeFreePorts();
  const blocker = await listen(base + 1);
  try {
    const { config } = testConfig({ env: [environment] }, { port_range_low: base, port_range_high: base + 2, disallowed_ports: [base] });
    for (let run = 0; run < 3; run++) {
      const server = await startServer(environment, { instanceName: "env", globalConfig: config, host: "127.0.0.1" });
      try {
        assert.equal(server.port, base + 2, "the only port of the range neither disallowed nor taken");
      } finally {
        await server.close();
      }
    }
    const fixed = testConfig({ env: [environment, { port: base + 2 }] }, { port_range_low: base, port_range_high: base + 1 });
    const server = await startServer(environment, { instanceName: "env", globalConfig: fixed.config, host: "127.0.0.1" });
    assert.equal(server.port, base + 2, "a fixed port wins over the range");
    await server.close();
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test("a port range that is not one fails the start naming both keys", async () => {
  const { config } = testConfig({ env: [environment] }, { port_range_low: 20_000, port_range_high: 10_001 });
  await assert.rejects(startServer(environment, { instanceName: "env", globalConfig: config, host: "127.0.0.1" }), (error: unknown) => error instanceof ServerConfigError && /port_range_low \/ port_range_high must be/.test(error.message));
});
