// `gym env wrap`: a resources server generated around an existing TypeScript domain module. The module is read
// with the type checker (analyze.ts); the app imports it (app-source.ts); the example rows and verifier cases
// are built from the module's own EXAMPLE_SEEDS / VERIFIER_CASES (or --rows), with the tools the generated
// server itself serves — read by importing it, never written by hand.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { z } from "zod";
import type { ResourcesServerDefinition } from "../../server/index.ts";
import type { FunctionToolDefinition } from "../../server/index.ts";
import {
  environmentConfigYaml,
  environmentDir,
  isInModulePackage,
  MODULE_PACKAGE_JSON,
  readmeText,
  rolloutScript,
  ScaffoldError,
  validateEnvironmentName,
  writeNewEnvironment,
} from "../common.ts";
import { analyzeDomainModule, snakeCase, type DomainModule, type Field, type ValueType } from "./analyze.ts";
import { appSource, shownModulePath } from "./app-source.ts";
import { testSource } from "./test-source.ts";
import { formatZodIssues } from "../../config/zod-issues.ts";

export interface WrapOptions {
  /** The domain module (a .ts file). */
  modulePath: string;
  /** The environment's name (snake_case); it is written to `<rootDir>/resources_servers/<name>/`. */
  name: string;
  /** The folder holding `resources_servers/`; the working directory by default. */
  rootDir?: string;
  /** JSONL of seed objects for the example rows; default: the module's `EXAMPLE_SEEDS`. */
  rowsPath?: string;
  /** The class to wrap when the module exports several with a scoring member. */
  className?: string;
  exposeToolsOverMcp?: boolean;
}

export interface WrapResult {
  envDir: string;
  /** Paths relative to `envDir`, in the order written. */
  files: string[];
  domain: DomainModule;
  warnings: string[];
}

type Row = Record<string, unknown> & { responses_create_params: Record<string, unknown> };

/** One line of `data/verifier_cases.jsonl` (the contract `gym env test` replays). */
export interface VerifierCaseLine {
  case: "full_reward" | "zero_reward" | "malformed";
  row: Row;
  tool_calls: { name: string; arguments: Record<string, unknown> | string }[];
  output_text: string;
  expected_reward: number;
}

const CASE_KINDS = new Set(["full_reward", "zero_reward", "malformed"]);
const EXAMPLE_ROWS = 5;
/** Keys of a seed object that say what the player is asked, when they are not seed fields themselves. */
const PROMPT_KEYS = ["prompt", "task"];

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const toJsonl = (values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n") + "\n";

/** Imports the app generated for a scratch folder: the server definition and the domain module it loaded. */
async function loadGenerated(domain: DomainModule, name: string): Promise<{ definition: ResourcesServerDefinition<unknown, Record<string, unknown>>; module: Record<string, unknown> }> {
  const scratch = mkdtempSync(join(tmpdir(), `gym-env-wrap-${name}-`));
  try {
    const appPath = join(scratch, "app.ts");
    // An ES module, as the environment will be (tsx would load a .ts outside any "type": "module" package as CommonJS).
    writeFileSync(join(scratch, "package.json"), MODULE_PACKAGE_JSON);
    writeFileSync(appPath, appSource(domain, { name, appDir: scratch }));
    let definition: ResourcesServerDefinition<unknown, Record<string, unknown>>;
    try {
      definition = (await import(pathToFileURL(appPath).href)).default;
    } catch (error) {
      throw new ScaffoldError(`the app generated around ${domain.path} does not load: ${(error as Error).message}`);
    }
    if (!Array.isArray(definition?.toolDefinitions)) throw new ScaffoldError(`the app generated around ${domain.path} does not default-export a resources server`);
    const module = (await import(pathToFileURL(domain.path).href)) as Record<string, unknown>;
    return { definition, module };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The seed objects of the example rows: `--rows` when given, else the module's EXAMPLE_SEEDS. */
function exampleSeeds(options: WrapOptions, module: Record<string, unknown>, domain: DomainModule): { seeds: Record<string, unknown>[]; source: (i: number) => string } {
  if (options.rowsPath) {
    const path = resolve(options.rowsPath);
    if (!existsSync(path)) throw new ScaffoldError(`--rows ${path} does not exist`);
    const seeds: Record<string, unknown>[] = [];
    const lineNumbers: number[] = [];
    readFileSync(path, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line.trim() === "") return;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (error) {
          throw new ScaffoldError(`${path}:${i + 1}: not valid JSON (${(error as Error).message})`);
        }
        if (!isPlainObject(value)) throw new ScaffoldError(`${path}:${i + 1}: a seed is a JSON object of row fields, e.g. {"answer": "crane"}`);
        seeds.push(value);
        lineNumbers.push(i + 1);
      });
    return { seeds, source: (i) => `${path}:${lineNumbers[i]}` };
  }
  if (!domain.exportsExampleSeeds) {
    throw new ScaffoldError(
      `no example tasks: pass --rows FILE (JSONL, one seed object per line, e.g. {"answer": "crane"}) or export EXAMPLE_SEEDS (an array of them) from ${domain.path}; the generator does not invent tasks`,
    );
  }
  const seeds = module.EXAMPLE_SEEDS;
  if (!Array.isArray(seeds) || !seeds.every(isPlainObject)) throw new ScaffoldError(`${domain.path}: EXAMPLE_SEEDS must be an array of objects (row fields, optionally a prompt)`);
  return { seeds, source: (i) => `EXAMPLE_SEEDS[${i}]` };
}

/**
 * A dataset row from a seed object: its `responses_create_params` (the served tools set), else its `prompt` /
 * `task` as the user message, else the module's description; every other key is a top-level row field.
 */
export function rowFromSeed(seed: Record<string, unknown>, tools: FunctionToolDefinition[], domain: DomainModule): Row {
  const seedNames = new Set(domain.seed.fields.map((f) => f.name));
  const fields: Record<string, unknown> = {};
  let prompt: string | undefined;
  let params: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(seed)) {
    if (key === "responses_create_params" && isPlainObject(value)) params = value;
    else if (PROMPT_KEYS.includes(key) && !seedNames.has(key) && typeof value === "string" && prompt === undefined) prompt = value;
    else fields[key] = value;
  }
  const responsesCreateParams = params ? { ...params, tools } : { input: [{ role: "user", content: prompt ?? domain.description }], tools };
  return { responses_create_params: responsesCreateParams, ...fields };
}

function checkSeed(definition: ResourcesServerDefinition<unknown, Record<string, unknown>>, row: Row, where: string): Record<string, unknown> | undefined {
  const seedSchema = definition.spec.seed;
  if (!seedSchema) return undefined;
  const parsed = (seedSchema as z.ZodType).safeParse(row);
  if (!parsed.success) {
    const problems = formatZodIssues(parsed.error.issues, { wholeValue: "(row)" });
    throw new ScaffoldError(`${where}: not a valid seed for ${definition.spec.name}: ${problems}`);
  }
  return parsed.data as Record<string, unknown>;
}

/** A value of the wrong JSON type for `type`, so validation refuses it. */
const wrongValue = (type: ValueType): unknown => (type.kind === "string" || (type.kind === "literal" && typeof type.values[0] === "string") ? 12345 : "not-a-valid-value");

/** The tool call of a derived malformed case: a required argument left out, else one of the wrong type, else no object at all. */
function invalidCall(domain: DomainModule): { name: string; arguments: Record<string, unknown> | string } {
  const withRequired = domain.tools.find((t) => t.parameters.fields.some((f) => !f.optional));
  if (withRequired) return { name: withRequired.toolName, arguments: {} };
  const withAny = domain.tools.find((t) => t.parameters.fields.length > 0);
  if (withAny) {
    const field: Field = withAny.parameters.fields[0]!;
    return { name: withAny.toolName, arguments: { [field.name]: wrongValue(field.type) } };
  }
  return { name: domain.tools[0]!.toolName, arguments: "[]" };
}

/** The reward an untouched session of `row` gets: the state built from its seed, then the generated verify. */
async function untouchedReward(definition: ResourcesServerDefinition<unknown, Record<string, unknown>>, row: Row, seed: Record<string, unknown> | undefined, outputText: string): Promise<number> {
  const { spec } = definition;
  const context = { sessionId: "gym-env-wrap", config: {}, server: undefined as never, signal: new AbortController().signal };
  const state = spec.state ? await spec.state(seed, context) : undefined;
  const response = { id: "resp", created_at: 0, model: "gym-env-wrap", object: "response", output: [{ type: "message", id: "msg", role: "assistant", status: "completed", content: [{ type: "output_text", text: outputText, annotations: [] }] }], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
  try {
    const result = await spec.verify.run(state, { ...row, response } as never, context);
    return typeof result === "number" ? result : result.reward;
  } finally {
    if (state !== undefined) await spec.disposeState?.(state);
  }
}

/** The module's VERIFIER_CASES as contract lines: `{case, seed, tool_calls: [{name, arguments}], output_text?, expected_reward}`. */
function moduleCases(module: Record<string, unknown>, domain: DomainModule, definition: ResourcesServerDefinition<unknown, Record<string, unknown>>): VerifierCaseLine[] {
  const cases = module.VERIFIER_CASES;
  if (!Array.isArray(cases)) throw new ScaffoldError(`${domain.path}: VERIFIER_CASES must be an array`);
  const toolNames = new Map(domain.tools.flatMap((t) => [[t.toolName, t.toolName], [t.memberName, t.toolName]]));
  return cases.map((entry, i) => {
    const where = `${domain.path}: VERIFIER_CASES[${i}]`;
    if (!isPlainObject(entry)) throw new ScaffoldError(`${where} is not an object`);
    if (!CASE_KINDS.has(entry.case as string)) throw new ScaffoldError(`${where}.case must be full_reward, zero_reward or malformed`);
    const seed = entry.seed ?? entry.row;
    if (!isPlainObject(seed)) throw new ScaffoldError(`${where}.seed must be an object of row fields`);
    if (typeof entry.expected_reward !== "number") throw new ScaffoldError(`${where}.expected_reward must be a number`);
    if (entry.output_text !== undefined && typeof entry.output_text !== "string") throw new ScaffoldError(`${where}.output_text must be a string`);
    const calls = entry.tool_calls ?? [];
    if (!Array.isArray(calls)) throw new ScaffoldError(`${where}.tool_calls must be an array of {name, arguments}`);
    const row = rowFromSeed(seed, definition.toolDefinitions, domain);
    checkSeed(definition, row, `${where}.seed`);
    return {
      case: entry.case as VerifierCaseLine["case"],
      row,
      tool_calls: calls.map((call, j) => {
        if (!isPlainObject(call) || typeof call.name !== "string") throw new ScaffoldError(`${where}.tool_calls[${j}] must be {name, arguments}`);
        const name = toolNames.get(call.name) ?? toolNames.get(snakeCase(call.name));
        if (!name) throw new ScaffoldError(`${where}.tool_calls[${j}]: '${call.name}' is not a tool (tools: ${domain.tools.map((t) => t.toolName).join(", ")})`);
        const args = call.arguments ?? {};
        if (!isPlainObject(args) && typeof args !== "string") throw new ScaffoldError(`${where}.tool_calls[${j}].arguments must be an object (or a JSON string)`);
        return { name, arguments: args };
      }),
      output_text: (entry.output_text as string | undefined) ?? "",
      expected_reward: entry.expected_reward,
    };
  });
}

export async function wrapDomainModule(options: WrapOptions): Promise<WrapResult> {
  const { name } = options;
  validateEnvironmentName(name);
  const rootDir = resolve(options.rootDir ?? process.cwd());
  const envDir = environmentDir(rootDir, name);
  // Checked before any work; writeNewEnvironment checks again at the moment of writing.
  if (existsSync(envDir)) throw new ScaffoldError(`${envDir} already exists; refusing to overwrite it (choose another name or remove the folder)`);

  const domain = analyzeDomainModule(options.modulePath, { className: options.className });
  const { definition, module } = await loadGenerated(domain, name);
  const tools = definition.toolDefinitions;

  const { seeds, source } = exampleSeeds(options, module, domain);
  if (seeds.length < EXAMPLE_ROWS) {
    throw new ScaffoldError(`${options.rowsPath ? "--rows" : "EXAMPLE_SEEDS"} has ${seeds.length} seed${seeds.length === 1 ? "" : "s"}; data/example.jsonl needs ${EXAMPLE_ROWS} (NeMo Gym's example-data check)`);
  }
  const warnings = [...domain.warnings];
  if (seeds.length > EXAMPLE_ROWS) warnings.push(`${seeds.length} example seeds given; data/example.jsonl keeps the first ${EXAMPLE_ROWS}`);
  const rows = seeds.slice(0, EXAMPLE_ROWS).map((seed, i) => {
    const row = rowFromSeed(seed, tools, domain);
    checkSeed(definition, row, source(i));
    return row;
  });

  let cases: VerifierCaseLine[];
  if (domain.exportsVerifierCases) {
    cases = moduleCases(module, domain, definition);
  } else {
    const row = rows[0]!;
    cases = [{ case: "malformed", row, tool_calls: [invalidCall(domain)], output_text: "", expected_reward: await untouchedReward(definition, row, checkSeed(definition, row, source(0)), "") }];
    warnings.push(`${domain.path} exports no VERIFIER_CASES: data/verifier_cases.jsonl has only a derived malformed case; add full_reward and zero_reward cases`);
  }

  const description = domain.description;
  const files: Record<string, string> = {
    "app.ts": appSource(domain, { name, appDir: envDir }),
    [`configs/${name}.yaml`]: environmentConfigYaml({ name, description: firstSentence(description), exposeToolsOverMcp: options.exposeToolsOverMcp }),
    "data/example.jsonl": toJsonl(rows),
    "data/verifier_cases.jsonl": toJsonl(cases),
    "tests/app.test.ts": testSource(domain, { name, testDir: join(envDir, "tests") }),
    "README.md": readme(domain, name, envDir, tools),
    "rollout.ts": rolloutScript({ name, generatedDir: envDir }),
  };
  // Outside an ES-module package (e.g. a fresh folder) the environment says it is one, so tsx loads it as ESM.
  if (!isInModulePackage(envDir)) files["package.json"] = MODULE_PACKAGE_JSON;
  writeNewEnvironment(rootDir, name, files);
  return { envDir, files: Object.keys(files), domain, warnings };
}

/** The first sentence, for one-line places such as a config's `description`. */
const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;

function readme(domain: DomainModule, name: string, envDir: string, tools: FunctionToolDefinition[]): string {
  const shownModule = shownModulePath(domain.path, envDir);
  const subject = domain.style === "class" ? `\`${domain.className}\`` : `the state from \`${domain.stateFactory!.name}()\``;
  const seedFields = domain.seed.fields.map((f) => `\`${f.name}\`${f.optional ? " (optional)" : ""}`).join(", ") || "none";
  const score = domain.score.kind === "function" ? `\`${domain.score.name}()\`` : `\`${domain.className}.${domain.score.name}${domain.score.kind === "method" ? "()" : ""}\``;
  const section = `## Domain module

Generated by \`gym env wrap\` around \`${shownModule}\`, which \`app.ts\` imports: no game logic is copied here.

- **Seed** (\`/seed_session\`): ${subject} is built per rollout from the row fields ${seedFields}. A field missing from
  the row is read from \`ground_truth\` (an object or a one-element list of one); a one-element list is unwrapped.
  A tool called before seeding is a 400.
- **Tools**: ${domain.tools.map((t) => `\`${t.toolName}\``).join(", ")} — a returned object is the tool's JSON output, any other value
  \`{"output": value}\`; an error the module throws is a 400 whose \`detail\` the model reads.
- **Verify**: ${score}${domain.score.takesText ? " (given the final assistant text)" : ""} is the reward; a session never seeded scores 0.
- **Data**: \`data/example.jsonl\` from the module's \`EXAMPLE_SEEDS\` (or \`--rows\`); \`data/verifier_cases.jsonl\` from its
  \`VERIFIER_CASES\` (or one derived \`malformed\` case).

Regenerate (into a fresh folder) when the module's signatures change.

`;
  const text = readmeText({ name, description: domain.description, tools });
  return text.includes("## Files") ? text.replace("## Files", `${section}## Files`) : `${text}\n${section}`;
}
