// `gym agent ask NAME "question"`: one question to an agent of the running graph (found through the head server,
// as `gym eval run --no-serve` finds it), printed as a conversation. The question becomes a dataset row —
// `responses_create_params.input` is the question, `tools` the ones the agent's resources server serves — and goes
// to the agent's /run, so the environment seeds, runs and scores it as it would a dataset row; `--no-verify` POSTs
// the agent's /v1/responses instead, as NeMo Gym's responses_api_agents/simple_agent/client.py does.
import { connectToRunningGraph, headServerOf, headServerUrl, HeadServerUnreachableError, type HttpResponse, type ServerClient } from "../client/index.ts";
import type { ConfigDict } from "../config/index.ts";
import { closestMatch } from "../config/servers.ts";
import { UserError } from "../config/errors.ts";
import { arg, defineCommand, flag } from "./command.ts";
import { conversationText } from "./conversation-text.ts";
import { flagOverrides } from "./load-config.ts";
import { instancesOfType, resourcesServerRouter } from "./server-session.ts";

export const agentAskCommand = defineCommand({
  path: ["agent", "ask"],
  description: "ask an agent of the running graph one question and print the conversation: tool calls, tool outputs, answer, reward",
  examples: [
    'gym agent ask example_single_tool_call_simple_agent "What is the weather in Seattle?"',
    'gym agent ask my_agent "Plan my day" --system "You are terse." --json ++head_server.port=11001',
  ],
  args: {
    name: arg.required("the agent instance (its top-level config key, as `gym env status` lists it)"),
    question: arg.required("the user's message"),
    overrides: arg.overrides("Hydra-style overrides: ++head_server.port=PORT, ++responses_create_params.temperature=0.2, …"),
  },
  flags: {
    system: flag.string("text", "a system message before the question"),
    tools: flag.negated("offer the model no tools (default: the tools the agent's resources server serves at GET /tools)"),
    rowFields: flag.string("json", "more fields of the row, a JSON object: what the environment's /seed_session and /verify read (e.g. '{\"expected_count\": 7}')"),
    verify: flag.negated("POST the agent's /v1/responses (NeMo Gym's client.py): the conversation only, no /seed_session, /verify or reward"),
    json: flag.boolean("print the agent's answer as JSON"),
    headUrl: flag.string("url", "the running graph's head server (default http://127.0.0.1:11000, as ++head_server.host/port)"),
  },
  toConfig: (flags) => ({ overrides: flags.overrides, flagOverrides: headServerOverrides(flags.headUrl) }),
  helpAfter:
    "\nThe row sent to /run: {...--row-fields, responses_create_params: {...++responses_create_params.*, input: [system?, user], tools}}.\n" +
    "A graph is started with `gym env start --config <env.yaml> --config <model.yaml>`.\n",
  run: ({ resolved }, { flags, print, warn }) =>
    agentAsk(
      resolved,
      { agent: flags.name, question: flags.question, system: flags.system, rowFields: rowFieldsOf(flags.rowFields), tools: flags.tools, verify: flags.verify, json: flags.json },
      { print, warn },
    ),
});

/** `--head-url http://host:port` as the `head_server` overrides it stands for. */
function headServerOverrides(headUrl: string | undefined): string[] {
  if (headUrl === undefined) return [];
  let url: URL;
  try {
    url = new URL(headUrl);
  } catch {
    throw new UserError(`--head-url ${headUrl}: not a URL (e.g. http://127.0.0.1:11000)`);
  }
  if (url.protocol !== "http:" || url.port === "") throw new UserError(`--head-url ${headUrl}: give http://HOST:PORT (e.g. http://127.0.0.1:11000)`);
  return flagOverrides({ "head_server.host": url.hostname.replace(/^\[(.*)\]$/, "$1"), "head_server.port": Number(url.port) });
}

/** `--row-fields '{…}'`: a JSON object, without responses_create_params (the question and the overrides make those). */
function rowFieldsOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch (error) {
    throw new UserError(`--row-fields: not JSON (${(error as Error).message})`);
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) throw new UserError(`--row-fields: give a JSON object, e.g. '{"expected_count": 7}'`);
  if ("responses_create_params" in fields) throw new UserError("--row-fields: responses_create_params is made from the question; set its other keys with ++responses_create_params.KEY=VALUE");
  return fields as Record<string, unknown>;
}

export interface AskOptions {
  agent: string;
  question: string;
  system?: string;
  /** Row fields besides responses_create_params (for /seed_session and /verify). */
  rowFields: Record<string, unknown>;
  /** Offer the tools the agent's resources server serves. */
  tools: boolean;
  /** POST /run (scored) rather than /v1/responses. */
  verify: boolean;
  json: boolean;
}

export async function agentAsk(resolved: ConfigDict, options: AskOptions, output: { print(line: string): void; warn(line: string): void }): Promise<number> {
  const client = await connectOrExplain(resolved);
  try {
    requireRunningAgent(client.config, options.agent);
    const input = [...(options.system === undefined ? [] : [{ role: "system", content: options.system }]), { role: "user", content: options.question }];
    const tools = options.tools ? await servedTools(client, options.agent, output.warn) : [];
    const overridden = typeof resolved.responses_create_params === "object" && resolved.responses_create_params !== null ? (resolved.responses_create_params as ConfigDict) : {};
    const params = { ...overridden, input, ...(tools.length > 0 ? { tools } : {}) };

    const path = options.verify ? "/run" : "/v1/responses";
    let answer: HttpResponse;
    try {
      answer = await client.post(options.agent, path, { json: options.verify ? { ...options.rowFields, responses_create_params: params } : params });
    } catch (error) {
      output.warn(`error: agent ${options.agent} did not answer ${path}: ${(error as Error).message}`);
      return 1;
    }
    if (!answer.ok) {
      const failureClass = answer.headers["x-ng-failure-class"];
      // The agent relays an environment's 4xx (a row without the fields its /seed_session or /verify needs) as x-ng-inner-status.
      const refused = options.verify && /^4\d\d$/.test(String(answer.headers["x-ng-inner-status"]));
      const hint = refused ? "; the environment refused the row: give the fields it reads with --row-fields '{…}', or skip seeding and scoring with --no-verify" : "";
      output.warn(`error: agent ${options.agent} answered ${path} with ${answer.status}${failureClass ? ` (${String(failureClass)})` : ""}: ${answer.text.slice(0, 1000)}${hint}`);
      return 1;
    }
    const body = answer.json<Record<string, unknown>>();
    if (options.json) {
      output.print(JSON.stringify(body, null, 2));
      return 0;
    }
    // /run answers the verify response (the row, `response`, `reward`, the environment's fields); /v1/responses the response itself.
    const turns = options.verify ? conversationText(input, body.response, body.reward) : conversationText(input, body);
    output.print(turns.join("\n\n"));
    return 0;
  } finally {
    await client.close();
  }
}

async function connectOrExplain(resolved: ConfigDict): Promise<ServerClient> {
  const head = headServerOf(resolved);
  try {
    return await connectToRunningGraph(head);
  } catch (error) {
    if (!(error instanceof HeadServerUnreachableError)) throw error;
    throw new UserError(
      `nothing is running at ${headServerUrl(head)} (${error.reason}): start a graph with \`gym env start --config <env.yaml> --config <model.yaml>\`, or point at the one running with ++head_server.port=PORT`,
    );
  }
}

function requireRunningAgent(config: ConfigDict, name: string): void {
  const agents = instancesOfType(config, "responses_api_agents");
  if (agents.includes(name)) return;
  const hint = closestMatch(name, agents);
  throw new UserError(
    `no agent '${name}' in the running graph${hint ? `; did you mean '${hint}'?` : ""} (agents running: ${agents.length > 0 ? agents.join(", ") : "none"})`,
  );
}

/**
 * The tools the agent's resources server serves (GET /tools). A server that does not say (NeMo Gym's Python
 * servers have no /tools) leaves the question without tools, and a line on stderr says so.
 */
async function servedTools(client: ServerClient, agent: string, warn: (line: string) => void): Promise<unknown[]> {
  let resources: string;
  try {
    resources = resourcesServerRouter(client.config)(agent);
  } catch (error) {
    warn(`note: no tools offered: ${(error as Error).message}`);
    return [];
  }
  try {
    const answer = await client.get(resources, "/tools", { deadlineMs: 10_000 });
    const tools = answer.ok ? answer.json<unknown>() : undefined;
    if (Array.isArray(tools)) return tools;
    warn(`note: no tools offered: ${resources} answered GET /tools with ${answer.status}${answer.ok ? " and no list" : ""}`);
  } catch (error) {
    warn(`note: no tools offered: ${resources} did not answer GET /tools (${(error as Error).message})`);
  }
  return [];
}
