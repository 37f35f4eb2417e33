// Starts an environment's resources server in this process, from its own `configs/<name>.yaml`: only the
// resources server instance of that folder (the agent and model of the YAML are not needed to check it), plus the
// resources servers it calls that its YAML names but does not define (ns_tools' `verifiers: {math_with_judge: …}`),
// each from that environment's own `configs/<name>.yaml`, as a user would add it to config_paths. An optional
// `data/env_test.yaml` is merged over them: the overrides the folder's own example data needs (a problems file or
// databases under data/ where the shipped config names the full dataset's location), so the checks run on what the
// folder ships without anyone editing its config. A model server instance that `data/env_test.yaml` itself declares
// (a scripted_model in `judge_rules` mode, say, wired as the resources server's `judge_model_server`) is started
// with it, so a judge environment's verdict parsing is checked without a judge model.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { asServerRef, entrypointIn, listServerInstances, loadGlobalConfig, NO_MODEL_CONFIG, type ConfigDict } from "../../config/index.ts";
import { loadYamlFile } from "../../config/yaml.ts";
import { ServerClient } from "../../client/index.ts";
import { isServerDefinition, type ResourcesServerDefinition, type ServerDefinition } from "../../server/index.ts";
import { startInProcess, type InProcessGraph } from "../../testing/in-process.ts";

export interface RunningEnvironment {
  instanceName: string;
  definition: ServerDefinition;
  /** `<ClassName>___<instance>`: the session cookie /seed_session must set. */
  sessionCookieName: string;
  /** Addresses the instance by name, with the per-call deadline of the checks. */
  client: ServerClient;
  close(): Promise<void>;
}

/** The optional file under `data/` whose config `gym env test` merges over `configs/<name>.yaml`. */
export const ENV_TEST_OVERRIDES = "env_test.yaml";

export type StartOutcome =
  | { started: true; environment: RunningEnvironment; configFile: string; notes: string[] }
  | { started: false; problem: string; definition?: ServerDefinition };

/** A definition's declarations when it was built with resourcesServer() (else only its class name is known). */
export const resourcesSpecOf = (definition: ServerDefinition | undefined) =>
  definition && (definition as ResourcesServerDefinition<unknown, unknown>).spec ? (definition as ResourcesServerDefinition<unknown, unknown>) : undefined;

export async function startEnvironment(options: { rootDir: string; name: string; envDir: string; callDeadlineMs: number }): Promise<StartOutcome> {
  const { rootDir, name, envDir } = options;
  const ownConfig = join(envDir, "configs", `${name}.yaml`);
  const overridesFile = join(envDir, "data", ENV_TEST_OVERRIDES);
  const hasOverrides = existsSync(overridesFile);
  // An environment that ships no configs/<name>.yaml (NeMo Gym's jailbreak_detection has only variants) may declare
  // the whole instance in data/env_test.yaml, which is then the config rather than merged over one.
  const configFile = existsSync(ownConfig) || !hasOverrides ? ownConfig : overridesFile;
  const shown = relative(rootDir, configFile);
  const overrides = hasOverrides && configFile !== overridesFile ? [overridesFile] : [];
  if (!existsSync(configFile)) return { started: false, problem: `${shown} is missing: it declares the resources server instance (\`<instance>: {resources_servers: {${name}: {entrypoint: app.py, domain: …}}}\`)` };

  let resolved: ConfigDict;
  let companions: Companion[];
  try {
    companions = await companionConfigs(rootDir, configFile);
    const configPaths = [configFile, ...companions.map((companion) => companion.configFile), ...overrides];
    ({ resolved } = await loadGlobalConfig({ configPaths, cwd: rootDir, initialConfig: NO_MODEL_CONFIG, logger: { warn: () => {} } }));
  } catch (error) {
    return { started: false, problem: `${[shown, ...overrides.map((file) => relative(rootDir, file))].join(" + ")} does not load: ${(error as Error).message}` };
  }
  const instances = listServerInstances(resolved, { cwd: rootDir, logger: { warn: () => {} } });
  const instance = instances.find((i) => i.serverType === "resources_servers" && i.implementation === name && !companions.some((c) => c.instanceName === i.instanceName));
  if (!instance) return { started: false, problem: `${shown} has no resources server instance of '${name}' (\`<instance>: {resources_servers: {${name}: {entrypoint: app.py, …}}}\`)` };
  const companionInstances = instances.filter((i) => i.serverType === "resources_servers" && companions.some((c) => c.instanceName === i.instanceName));
  const declaredInOverrides = new Set<string>();
  if (hasOverrides) for (const key of Object.keys(await loadYamlFile(overridesFile))) declaredInOverrides.add(key);
  const modelInstances = instances.filter((i) => i.serverType === "responses_api_models" && declaredInOverrides.has(i.instanceName));

  // The folder under test, never a same-named environment elsewhere on the search path.
  const entrypoint = entrypointIn(envDir, String(instance.fields.entrypoint));
  let definition: unknown;
  try {
    definition = (await import(pathToFileURL(entrypoint).href)).default;
  } catch (error) {
    return { started: false, problem: `${relative(rootDir, entrypoint)} does not load: ${(error as Error).message}${commonJsHint(entrypoint) ?? ""}` };
  }
  if (!isServerDefinition(definition) || definition.serverType !== "resources_servers") {
    return { started: false, problem: `${relative(rootDir, entrypoint)} does not default-export a resources server (resourcesServer({...}))` };
  }

  let graph: InProcessGraph;
  try {
    const graphConfig: ConfigDict = { [instance.instanceName]: resolved[instance.instanceName] };
    for (const companion of [...companionInstances, ...modelInstances]) graphConfig[companion.instanceName] = resolved[companion.instanceName];
    graph = await startInProcess(graphConfig, { [instance.instanceName]: definition });
  } catch (error) {
    return { started: false, problem: `instance '${instance.instanceName}' did not start: ${(error as Error).message}`, definition };
  }
  const client = new ServerClient({ globalConfig: graph.config, deadlineMs: options.callDeadlineMs, maxRetries: 0 });
  const hint = commonJsHint(entrypoint);
  const companionNotes = companions.map((c) => `started '${c.instanceName}' alongside, from ${relative(rootDir, c.configFile)}: ${shown} calls it but does not define it`);
  const modelNotes = modelInstances.map((i) => `started model server '${i.instanceName}' (${i.implementation}) alongside, as ${relative(rootDir, overridesFile)} declares it`);
  return {
    started: true,
    configFile: shown,
    notes: [...(hint ? [hint.trim()] : []), ...companionNotes, ...modelNotes, ...overrides.map((file) => `merged ${relative(rootDir, file)} over ${shown}`)],
    environment: {
      instanceName: instance.instanceName,
      definition,
      sessionCookieName: `${definition.className}___${instance.instanceName}`,
      client,
      async close() {
        await client.close();
        await graph.close();
      },
    },
  };
}

interface Companion {
  instanceName: string;
  configFile: string;
}

/**
 * The resources servers `configFile` references (`{type: resources_servers, name: X}`) without defining X, whose
 * own environment folder has `configs/X.yaml` (and theirs, in turn). A reference with no such file is left to the
 * config's own error, which names it.
 */
async function companionConfigs(rootDir: string, configFile: string): Promise<Companion[]> {
  const found: Companion[] = [];
  const defined = new Set<string>();
  const pending = [configFile];
  const seenFiles = new Set(pending);
  const referenced: string[] = [];
  while (pending.length > 0) {
    const raw = await loadYamlFile(pending.shift()!);
    for (const key of Object.keys(raw)) defined.add(key);
    const walk = (node: unknown): void => {
      const ref = asServerRef(node);
      if (ref) {
        if (ref.type === "resources_servers") referenced.push(ref.name);
      } else if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === "object") Object.values(node).forEach(walk);
    };
    walk(raw);
    for (const name of referenced.splice(0)) {
      const file = join(rootDir, "resources_servers", name, "configs", `${name}.yaml`);
      if (defined.has(name) || seenFiles.has(file) || !existsSync(file)) continue;
      seenFiles.add(file);
      pending.push(file);
      found.push({ instanceName: name, configFile: file });
    }
  }
  // A companion file that turned out not to define the instance is no companion (the config error then names it).
  return found.filter((companion) => defined.has(companion.instanceName));
}

/**
 * Node loads a `.ts` file as CommonJS unless the nearest package.json says `"type": "module"`; the environment
 * then gets its own copies of this library (its 422s become 500s) or does not load at all.
 */
function commonJsHint(entrypoint: string): string | undefined {
  if (!entrypoint.endsWith(".ts") && !entrypoint.endsWith(".js")) return undefined;
  for (let dir = dirname(entrypoint); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if (JSON.parse(readFileSync(manifest, "utf8")).type === "module") return undefined;
      } catch {
        // unreadable: treated as CommonJS, as Node would
      }
      return ` (hint: ${manifest} does not say "type": "module", so Node loads the environment as CommonJS)`;
    }
    if (dirname(dir) === dir) return ` (hint: no package.json with "type": "module" above ${dirname(entrypoint)}, so Node loads the environment as CommonJS)`;
  }
}
