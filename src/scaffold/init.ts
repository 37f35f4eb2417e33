// `gym env init`: a new environment folder from an archetype — app, config, example rows whose tools are
// what the server serves, verifier cases, tests, README and a rollout script. Nothing is ever overwritten.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { FunctionToolDefinition } from "../server/index.ts";
import { computerUse } from "./archetypes/computer-use.ts";
import { game } from "./archetypes/game.ts";
import { testSource, toJsonl, type Archetype } from "./archetypes/shared.ts";
import { statefulSandbox } from "./archetypes/stateful-sandbox.ts";
import { environmentConfigYaml, environmentDir, isInModulePackage, MODULE_PACKAGE_JSON, readmeText, rolloutScript, ScaffoldError, validateEnvironmentName, writeNewEnvironment } from "./common.ts";

export const ARCHETYPES = { game, "stateful-sandbox": statefulSandbox, "computer-use": computerUse } satisfies Record<string, Archetype>;
export type ArchetypeName = keyof typeof ARCHETYPES;
export const ARCHETYPE_NAMES = Object.keys(ARCHETYPES) as ArchetypeName[];

export interface InitOptions {
  name: string;
  archetype: ArchetypeName;
  /** The folder that holds (or will hold) `resources_servers/`; the working directory by default. */
  rootDir?: string;
}

export interface InitResult {
  envDir: string;
  /** Paths relative to `envDir`, in the order written. */
  files: string[];
}

/**
 * The tools the archetype's server serves, read from the server definition itself: its app is generated into a
 * scratch folder (with imports for that folder) and imported, so example rows can never disagree with GET /tools.
 */
async function servedTools(archetype: Archetype, name: string): Promise<FunctionToolDefinition[]> {
  const scratch = mkdtempSync(join(tmpdir(), `gym-env-init-${name}-`));
  try {
    const appPath = join(scratch, "app.ts");
    writeFileSync(join(scratch, "package.json"), MODULE_PACKAGE_JSON);
    writeFileSync(appPath, archetype.app({ name, dir: scratch }));
    const definition = (await import(pathToFileURL(appPath).href)).default as { toolDefinitions?: FunctionToolDefinition[] };
    if (!Array.isArray(definition?.toolDefinitions)) throw new ScaffoldError(`the ${name} app does not default-export a resources server`);
    return definition.toolDefinitions;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function initEnvironment(options: InitOptions): Promise<InitResult> {
  const { name } = options;
  validateEnvironmentName(name);
  const archetype: Archetype | undefined = Object.hasOwn(ARCHETYPES, options.archetype) ? ARCHETYPES[options.archetype] : undefined;
  if (!archetype) throw new ScaffoldError(`unknown archetype '${options.archetype}': choose one of ${ARCHETYPE_NAMES.join(", ")}`);
  const rootDir = resolve(options.rootDir ?? process.cwd());
  const envDir = environmentDir(rootDir, name);
  // Checked before any work; writeNewEnvironment checks again at the moment of writing.
  if (existsSync(envDir)) throw new ScaffoldError(`${envDir} already exists; refusing to overwrite it (choose another name or remove the folder)`);

  const tools = await servedTools(archetype, name);
  const rows = archetype.exampleRows(tools);
  const files: Record<string, string> = {
    "app.ts": archetype.app({ name, dir: envDir }),
    [`configs/${name}.yaml`]: environmentConfigYaml({ name, description: archetype.summary, domain: archetype.domain }),
    "data/example.jsonl": toJsonl(rows),
    "data/verifier_cases.jsonl": toJsonl(archetype.verifierCases(rows)),
    "tests/app.test.ts": testSource({ name, dir: join(envDir, "tests") }, archetype),
    "README.md": readmeText({ name, description: `${archetype.summary}.\n\n${archetype.readme}`, tools }),
    "rollout.ts": rolloutScript({ name, generatedDir: envDir }),
  };
  // Outside an ES-module package (e.g. a fresh folder) the environment says it is one, so tsx loads it as ESM.
  if (!isInModulePackage(envDir)) files["package.json"] = MODULE_PACKAGE_JSON;
  writeNewEnvironment(rootDir, name, files);
  return { envDir, files: Object.keys(files) };
}
