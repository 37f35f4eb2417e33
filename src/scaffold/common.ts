// What every generated environment shares, whichever way it was made (`gym env init`, `gym env wrap`): the
// name rules, import paths back into this project, the no-overwrite write, the config, the rollout script and
// the README.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { dumpYaml, PROJECT_ROOT } from "../config/index.ts";
import { RESERVED_TOP_LEVEL_KEYS, SERVER_TYPES } from "../config/types.ts";
import { UserError } from "../config/errors.ts";
import { RESERVED_TOOL_NAMES } from "../server/resources-server.ts";

/** A scaffolding refusal (bad name, existing folder, unreadable module): the user's mistake, one line and exit 2. */
export class ScaffoldError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ScaffoldError";
  }
}

const ENVIRONMENT_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;
/** Names that would collide with a config key, a server kind, the built-in agent/model, or a project folder. */
const RESERVED_NAMES = new Set<string>([
  ...RESERVED_TOP_LEVEL_KEYS,
  ...SERVER_TYPES,
  ...RESERVED_TOOL_NAMES,
  "simple_agent",
  "policy_model",
  "node_modules",
  "src",
  "tests",
  "data",
  "configs",
]);

/** A snake_case identifier (`my_env`), at most 64 characters, not a reserved word of configs or of the project. */
export function validateEnvironmentName(name: string): void {
  if (!ENVIRONMENT_NAME.test(name)) {
    throw new ScaffoldError(
      `invalid environment name '${name}': use snake_case (lowercase letters, digits and single underscores, starting with a letter), e.g. 'word_guess'`,
    );
  }
  if (name.length > MAX_NAME_LENGTH) throw new ScaffoldError(`invalid environment name '${name}': at most ${MAX_NAME_LENGTH} characters`);
  if (RESERVED_NAMES.has(name)) throw new ScaffoldError(`invalid environment name '${name}': it is reserved (config keys, server kinds, built-in servers)`);
}

/** `my_word_game` → `MyWordGame` (NeMo Gym's server class title). */
export function classTitle(name: string): string {
  return name
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

const toPosix = (path: string) => path.split(sep).join("/");

/** The import specifier, from a file in `generatedFileDir`, of `projectRelativeModule` (e.g. `src/server/index.ts`) in this project. */
export function libraryImport(generatedFileDir: string, projectRelativeModule: string): string {
  const specifier = toPosix(relative(resolve(generatedFileDir), join(PROJECT_ROOT, projectRelativeModule)));
  return specifier.startsWith("../") || specifier.startsWith("./") ? specifier : `./${specifier}`;
}

/**
 * How a file in `generatedFileDir` imports zod: the bare `"zod"` when Node finds this project's copy from there
 * (inside the project), else through this project (`src/scaffold/zod.ts`), so an environment generated anywhere
 * runs and type-checks against the same zod as the library.
 */
export function zodImport(generatedFileDir: string): string {
  const projectZod = join(PROJECT_ROOT, "node_modules", "zod");
  for (let dir = resolve(generatedFileDir); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", "zod");
    if (existsSync(join(candidate, "package.json"))) return candidate === projectZod ? "zod" : libraryImport(generatedFileDir, "src/scaffold/zod.ts");
    if (dirname(dir) === dir) return libraryImport(generatedFileDir, "src/scaffold/zod.ts");
  }
}

/**
 * True when `.ts` files in `dir` would load as ES modules: the nearest package.json says `"type": "module"`.
 * A folder outside any such package needs its own `{"type": "module"}` package.json, or tsx loads it as CommonJS.
 */
export function isInModulePackage(dir: string): boolean {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const manifest = join(current, "package.json");
    if (existsSync(manifest)) {
      try {
        return JSON.parse(readFileSync(manifest, "utf8")).type === "module";
      } catch {
        return false;
      }
    }
    if (dirname(current) === current) return false;
  }
}

export const MODULE_PACKAGE_JSON = `${JSON.stringify({ private: true, type: "module" }, null, 2)}\n`;

/** Where an environment named `name` lives under `rootDir`. */
export const environmentDir = (rootDir: string, name: string) => resolve(rootDir, "resources_servers", name);

/**
 * Writes `files` (paths relative to the environment folder) into `<rootDir>/resources_servers/<name>/`.
 * Refuses when the folder or any file exists: nothing is written then, and a failed write removes what it began.
 */
export function writeNewEnvironment(rootDir: string, name: string, files: Record<string, string>): string {
  validateEnvironmentName(name);
  const envDir = environmentDir(rootDir, name);
  const targets = Object.keys(files).map((file) => {
    const target = resolve(envDir, file);
    if (isAbsolute(file) || normalize(file).startsWith("..") || !target.startsWith(envDir + sep)) {
      throw new ScaffoldError(`refusing to write '${file}': generated files must stay inside ${envDir}`);
    }
    return target;
  });
  if (existsSync(envDir)) throw new ScaffoldError(`${envDir} already exists; refusing to overwrite it (choose another name or remove the folder)`);
  const existing = targets.filter((target) => existsSync(target));
  if (existing.length > 0) throw new ScaffoldError(`refusing to overwrite ${existing.join(", ")}`);

  mkdirSync(dirname(envDir), { recursive: true });
  try {
    // Not recursive: a folder created meanwhile by someone else is an error, not something to write into.
    mkdirSync(envDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new ScaffoldError(`${envDir} already exists; refusing to overwrite it`);
    throw error;
  }
  try {
    Object.entries(files).forEach(([file, content], i) => {
      mkdirSync(dirname(targets[i]!), { recursive: true });
      writeFileSync(targets[i]!, content, { flag: "wx" });
    });
  } catch (error) {
    rmSync(envDir, { recursive: true, force: true });
    throw error;
  }
  return envDir;
}

/** `configs/<name>.yaml`: the resources server instance and a simple_agent wired to it and to `policy_model`. */
export function environmentConfigYaml(options: { name: string; description: string; exposeToolsOverMcp?: boolean; domain?: string }): string {
  const { name } = options;
  const resourcesServerInstance = `${name}_resources_server`;
  const config = {
    [resourcesServerInstance]: {
      resources_servers: {
        [name]: {
          entrypoint: "app.py",
          domain: options.domain ?? "agent",
          verified: false,
          description: options.description,
          ...(options.exposeToolsOverMcp ? { expose_tools_over_mcp: true } : {}),
        },
      },
    },
    [`${name}_simple_agent`]: {
      responses_api_agents: {
        simple_agent: {
          entrypoint: "app.py",
          resources_server: { type: "resources_servers", name: resourcesServerInstance },
          model_server: { type: "responses_api_models", name: "policy_model" },
          datasets: [{ name: "example", type: "example", jsonl_fpath: `resources_servers/${name}/data/example.jsonl` }],
        },
      },
    },
  };
  return dumpYaml(config);
}

/** Agent and resources server instance names of a generated environment. */
export const instanceNames = (name: string) => ({ resourcesServer: `${name}_resources_server`, agent: `${name}_simple_agent` });

/**
 * `rollout.ts`: drives the environment with any OpenAI-compatible Chat Completions model. The tools come from
 * `GET /tools` at run time, so the schema the model sees is the one the server enforces.
 */
export function rolloutScript(options: { name: string; generatedDir: string }): string {
  const { name, generatedDir } = options;
  const lib = (module: string) => libraryImport(generatedDir, module);
  return `// Plays the rows of data/example.jsonl against this environment with any OpenAI-compatible model
// (Chat Completions): /seed_session → model ↔ tools → /verify, and prints each reward.
//
//   node --import tsx resources_servers/${name}/rollout.ts --model-url https://api.openai.com/v1 --model gpt-4.1-mini
//
// Flags or environment: --model-url (OPENAI_BASE_URL), --model (OPENAI_MODEL), --api-key (OPENAI_API_KEY),
// --resources-url (a running server; default: this folder's app.ts started in this process), --input (rows),
// --max-turns (MAX_TURNS, default 6). The tools the model sees are read from GET /tools, never copied.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HttpClient, raiseForStatus } from "${lib("src/client/index.ts")}";
import { startServer } from "${lib("src/server/index.ts")}";
import type { FunctionToolDefinition } from "${lib("src/server/index.ts")}";
import environment from "./app.ts";

const { values: flags } = parseArgs({
  options: {
    "model-url": { type: "string", default: process.env.OPENAI_BASE_URL },
    model: { type: "string", default: process.env.OPENAI_MODEL },
    "api-key": { type: "string", default: process.env.OPENAI_API_KEY ?? "" },
    "resources-url": { type: "string" },
    input: { type: "string", default: join(import.meta.dirname, "data", "example.jsonl") },
    "max-turns": { type: "string", default: process.env.MAX_TURNS ?? "6" },
  },
});
if (!flags["model-url"] || !flags.model) {
  console.error("usage: rollout.ts --model-url <OpenAI-compatible base URL, e.g. http://localhost:8000/v1> --model <name> [--api-key <key>]");
  process.exit(2);
}
const modelUrl = flags["model-url"].replace(/\\/+$/, "");
const maxTurns = Number(flags["max-turns"]);
const http = new HttpClient({ deadlineMs: 300_000, maxRetries: 2 });

interface ChatToolCall {
  id: string;
  function: { name: string; arguments: string };
}
interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

const messageText = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((part) => part?.text ?? "").join("") : "";

/** The row's prompt (a string or Responses messages) as Chat messages. */
function chatMessages(params: { input: unknown; instructions?: string | null }): ChatMessage[] {
  const input = typeof params.input === "string" ? [{ role: "user", content: params.input }] : (params.input as { role: string; content: unknown }[]);
  const messages = input.map((m) => ({ role: m.role === "developer" ? "system" : m.role, content: messageText(m.content) }));
  return params.instructions ? [{ role: "system", content: params.instructions }, ...messages] : messages;
}

async function rollout(resourcesUrl: string, row: Record<string, any>, tools: FunctionToolDefinition[]) {
  // The signed session cookie is the only link between the calls of one rollout.
  let cookies = (raiseForStatus(await http.request(\`\${resourcesUrl}/seed_session\`, { method: "POST", json: row }), "seed_session")).cookies;
  const messages = chatMessages(row.responses_create_params);
  const output: Record<string, unknown>[] = [];
  const chatTools = tools.map(({ name, description, parameters }) => ({ type: "function", function: { name, description, parameters } }));

  for (let turn = 0; turn < maxTurns; turn++) {
    const answer = raiseForStatus(
      await http.request(\`\${modelUrl}/chat/completions\`, {
        method: "POST",
        headers: flags["api-key"] ? { authorization: \`Bearer \${flags["api-key"]}\` } : {},
        json: { model: flags.model, messages, tools: chatTools },
      }),
      "chat/completions",
    );
    const message = answer.json<{ choices: { message: ChatMessage }[] }>().choices[0]!.message;
    messages.push({ role: "assistant", content: message.content ?? null, ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) });
    if (!message.tool_calls?.length) {
      output.push({ id: \`msg_\${turn}\`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: message.content ?? "", annotations: [] }] });
      break;
    }
    for (const call of message.tool_calls) {
      output.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments, id: call.id, status: "completed" });
      let args: unknown;
      try {
        args = JSON.parse(call.function.arguments || "{}");
      } catch {
        args = undefined;
      }
      const result =
        args === undefined
          ? { text: JSON.stringify({ error: "arguments are not valid JSON" }), cookies: {} }
          : await http.request(\`\${resourcesUrl}/\${encodeURIComponent(call.function.name)}\`, { method: "POST", json: args, cookies });
      cookies = { ...cookies, ...result.cookies };
      output.push({ type: "function_call_output", call_id: call.id, output: result.text });
      messages.push({ role: "tool", tool_call_id: call.id, content: result.text });
    }
  }

  const response = { id: "rollout", created_at: Math.floor(Date.now() / 1000), model: flags.model, object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools };
  const verified = raiseForStatus(await http.request(\`\${resourcesUrl}/verify\`, { method: "POST", json: { ...row, response }, cookies }), "verify");
  return verified.json<{ reward: number }>().reward;
}

const local = flags["resources-url"]
  ? undefined
  : await startServer(environment, {
      instanceName: "${name}_resources_server",
      globalConfig: { "${name}_resources_server": { resources_servers: { ${name}: { entrypoint: "app.ts", domain: "agent" } } } },
      host: "127.0.0.1",
      port: 0,
    });
const resourcesUrl = (flags["resources-url"] ?? local!.url).replace(/\\/+$/, "");
try {
  const tools = raiseForStatus(await http.request(\`\${resourcesUrl}/tools\`, { method: "GET" }), "tools").json<FunctionToolDefinition[]>();
  const rows = readFileSync(flags.input!, "utf8").split("\\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
  const rewards: number[] = [];
  for (const [index, row] of rows.entries()) {
    const reward = await rollout(resourcesUrl, row, tools);
    rewards.push(reward);
    console.log(\`row \${index}: reward \${reward}\`);
  }
  console.log(\`mean reward \${(rewards.reduce((a, b) => a + b, 0) / Math.max(rewards.length, 1)).toFixed(4)} over \${rewards.length} rows\`);
} finally {
  await local?.close();
  await http.close();
}
`;
}

/** README.md of a generated environment: what it is, its tools, and how to run, test and collect it. */
export function readmeText(options: { name: string; description: string; tools: { name: string; description?: string }[] }): string {
  const { name, description, tools } = options;
  const { agent } = instanceNames(name);
  const toolLines = tools.map((t) => `- \`${t.name}\`${t.description ? ` — ${t.description}` : ""}`).join("\n");
  return `# ${name}

${description}

## Tools

${toolLines}

The model is shown exactly what \`GET /tools\` serves: the definitions are generated from the zod schemas in
\`app.ts\` that also validate every call (a bad argument is a 422 the model reads).

## Files

- \`app.ts\` — the environment: state, tools, verify.
- \`configs/${name}.yaml\` — the resources server and \`${agent}\` (simple_agent wired to it and to \`policy_model\`).
- \`data/example.jsonl\` — five example rows; their \`tools\` equal \`GET /tools\`.
- \`data/verifier_cases.jsonl\` — verify cases (\`full_reward\`, \`zero_reward\`, \`malformed\`) replayed by \`gym env test\`.
- \`tests/app.test.ts\` — tests over real HTTP.
- \`rollout.ts\` — plays the example rows with any OpenAI-compatible model.

## Run

\`\`\`bash
# tests
node --import tsx --test resources_servers/${name}/tests/app.test.ts

# collect the example rows with the zero-setup scripted_model
npm run gym -- eval run \\
  --config resources_servers/${name}/configs/${name}.yaml \\
  --config responses_api_models/scripted_model/configs/scripted_model.yaml \\
  --agent ${agent} \\
  --input resources_servers/${name}/data/example.jsonl --output results/${name}.jsonl

# drive it with any OpenAI-compatible model (tools read from GET /tools at run time)
node --import tsx resources_servers/${name}/rollout.ts --model-url http://localhost:8000/v1 --model <model> [--api-key <key>]
\`\`\`

Licence: code and data Apache-2.0.
`;
}
