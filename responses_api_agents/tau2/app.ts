// NeMo Gym's tau2 agent: a row is one τ²-bench task (its TextRunConfig, Task, seed, evaluation_type); /run plays
// τ²-bench's half-duplex simulation — the fixed greeting, then the user simulator (a model call to
// user_model_server) and the agent (a model call to model_server, with the domain's tools) taking turns, the agent's
// tool calls run against the domain's DB — and scores it with τ²-bench's evaluator. The answer is NeMo's
// Tau2VerifyResponse: the row, the conversation as responses items, the SimulationRun and the usage figures.
// Both model calls go to /v1/chat/completions, as NeMo's (LiteLLM with api_base <server>/v1) do.
import { join } from "node:path";
import { z } from "zod";
import { InfrastructureFailure, innerCall, requireOwnSuccess } from "../../src/client/index.ts";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { HttpError } from "../../src/protocol/errors.ts";
import { airline } from "../../src/ports/tau2/airline.ts";
import { retail } from "../../src/ports/tau2/retail.ts";
import { telecom, telecomWorkflow } from "../../src/ports/tau2/telecom.ts";
import { readTau2File } from "../../src/ports/tau2/data.ts";
import { markIntegerLiterals, type Tau2Domain } from "../../src/ports/tau2/domain.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { evaluateSimulation, type Generate, runSimulation, type Tau2Task } from "../../src/ports/tau2/simulation.ts";
import { responseItems } from "../../src/ports/tau2/response.ts";
import { compute as computeTau2Metrics } from "../../src/ports/tau2/metrics.ts";
import { computeAggregateMetrics } from "../../src/metrics/index.ts";
import { alwaysVerifiesKeys, responsesApiAgent, rolloutIdForRow, rolloutPathPrefix } from "../../src/server/index.ts";

const ServerRef = z.object({ type: z.literal("responses_api_models"), name: z.string() });

const Tau2Config = z.looseObject({
  model_server: ServerRef,
  user_model_server: ServerRef,
  /** Merged last into the user simulator's model arguments (over the row's config.llm_args_user). */
  user_llm_args: z.record(z.string(), z.unknown()).default({}),
  /** NeMo's: keep loguru's logging. Logging here is the server's own; accepted, means nothing more. */
  debug: z.boolean().default(false),
  /** NeMo's: print tau2's step counts (an env var the fork reads). Accepted; this port prints nothing. */
  print_step_counts: z.boolean().default(false),
  max_steps: z.number().int().positive().default(200),
  max_agent_steps: z.number().int().positive().nullable().default(null),
  turns_remaining_interval: z.number().int().positive().default(1),
  /**
   * This port's: the model server that plays τ²-bench's NL-assertions judge (its DEFAULT_LLM_NL_ASSERTIONS,
   * gpt-4.1, at temperature 0). NeMo names none, so a task scored on NL_ASSERTION is a 501 without it.
   */
  nl_assertions_model_server: ServerRef.nullable().default(null),
  /** This port's: where τ²-bench's data tree is (NeMo: responses_api_agents/tau2/tau2_data, its TAU2_DATA_DIR). */
  data_dir: z.string().default(join(PROJECT_ROOT, "responses_api_agents", "tau2", "tau2_data")),
});
type Config = z.output<typeof Tau2Config>;

const DOMAINS: Record<string, Tau2Domain> = { airline, retail, telecom, "telecom-workflow": telecomWorkflow };
const KNOWN_DOMAINS = ["airline", "retail", "telecom", "telecom-workflow", "mock", "banking_knowledge"];

// Tau2RunRequest: the fields NeMo pins to one value are checked, the rest carried through.
/** Marks which top-level arguments the model wrote as JSON integers (Python prints an int and a float apart). */
function markIntegerLiteralArguments(args: unknown, text: string): void {
  if (!args || typeof args !== "object" || Array.isArray(args)) return;
  const parsed = pythonJsonLoads(text);
  if (!(parsed instanceof Map)) return;
  markIntegerLiterals(args as Record<string, unknown>, [...parsed].filter(([, v]) => typeof v === "bigint").map(([k]) => k));
}

const RunRow = z.looseObject({
  config: z.looseObject({
    domain: z.string(),
    max_errors: z.number().int().default(10),
    llm_args_user: z.record(z.string(), z.unknown()).default({}),
    timeout: z.number().nullable().default(null),
    agent: z.string().default("llm_agent"),
    user: z.string().default("user_simulator"),
    enforce_communication_protocol: z.boolean().default(false),
  }),
  task: z.looseObject({ id: z.string(), user_scenario: z.looseObject({ instructions: z.unknown() }), evaluation_criteria: z.unknown().optional(), initial_state: z.unknown().optional() }),
  seed: z.number().int(),
  evaluation_type: z.string(),
  save_dir: z.null(),
  user_voice_settings: z.null(),
  user_persona_config: z.null(),
  verbose_logs: z.literal(false),
  audio_debug: z.literal(false),
  audio_taps: z.literal(false),
  auto_review: z.literal(false),
  review_mode: z.literal("full"),
  hallucination_feedback: z.null(),
});

function parseRow(row: unknown) {
  const parsed = RunRow.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HttpError(422, `${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

async function chat(client: any, server: string, path: string, body: Record<string, unknown>, signal: AbortSignal | undefined) {
  const url = `${server}${path}`;
  const answer = requireOwnSuccess(await innerCall(url, () => client.post(server, path, { json: body, signal })), url);
  const completion = answer.json() as any;
  const choice = completion?.choices?.[0];
  if (!choice || choice.message?.role !== "assistant") throw new InfrastructureFailure("invalid_inner_answer", `${url} answered no assistant choice: ${answer.text.slice(0, 300)}`);
  return completion;
}

export default responsesApiAgent<Config>({
  name: "Tau2Agent",
  config: Tau2Config,
  refusedConfigKeys: {
    ...alwaysVerifiesKeys("tau2"),
  },

  async responses() {
    throw new HttpError(501, "tau2 has no /v1/responses (NeMo Gym's raises NotImplementedError): use /run");
  },

  async run({ row: rawRow, signal }, { config, client, globalConfig }) {
    const row = parseRow(rawRow);
    const domainName = row.config.domain;
    const domain = DOMAINS[domainName];
    if (!domain) throw new HttpError(501, KNOWN_DOMAINS.includes(domainName) ? `τ²-bench domain ${domainName} is not ported (airline, retail, telecom and telecom-workflow are)` : `config.domain: unknown τ²-bench domain ${domainName}`);
    if (row.config.agent !== "llm_agent" || row.config.user !== "user_simulator") throw new HttpError(501, `config.agent ${row.config.agent} / config.user ${row.config.user}: only llm_agent with user_simulator is ported`);
    if (row.config.enforce_communication_protocol) throw new HttpError(501, "config.enforce_communication_protocol: true is not ported");
    if (row.config.timeout != null) throw new HttpError(501, "config.timeout: a wall-clock limit is not ported");

    const rcp = (rawRow as any).responses_create_params ?? {};
    const prefix = rolloutPathPrefix(rolloutIdForRow(rawRow, globalConfig));
    const agentArgs: Record<string, unknown> = {};
    for (const k of ["temperature", "top_p"]) if (rcp[k] !== undefined) agentArgs[k] = rcp[k];
    if (rcp.max_output_tokens) agentArgs.max_tokens = rcp.max_output_tokens;
    // LiteLLM's own arguments (api_base, api_key, num_retries…) are not request fields.
    const userArgs = Object.fromEntries(Object.entries({ ...row.config.llm_args_user, ...config.user_llm_args }).filter(([k]) => !["api_base", "api_key", "num_retries", "base_url"].includes(k)));
    const generate: Generate = async (who, messages, tools) => {
      const server = who === "agent" ? config.model_server.name : config.user_model_server.name;
      const body: Record<string, unknown> = { model: who === "agent" ? "dummy agent model" : "dummy user model", messages, ...(who === "agent" ? agentArgs : userArgs), seed: row.seed };
      if (tools && tools.length > 0) Object.assign(body, { tools, tool_choice: "auto" });
      const completion = await chat(client, server, `${prefix}/v1/chat/completions`, body, signal);
      const message = completion.choices[0].message;
      let toolCalls = null;
      if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
        toolCalls = message.tool_calls.map((c: any) => {
          let args;
          try {
            args = JSON.parse(c.function.arguments);
            markIntegerLiteralArguments(args, c.function.arguments);
          } catch {
            // τ²-bench's json.loads raises here and the task fails: a model fault, not a score.
            throw new InfrastructureFailure("invalid_inner_answer", `${server}: a tool call's arguments are not JSON: ${String(c.function?.arguments).slice(0, 200)}`);
          }
          return { id: c.id, name: c.function.name, arguments: args };
        });
      }
      const usage = completion.usage ? { prompt_tokens: completion.usage.prompt_tokens, completion_tokens: completion.usage.completion_tokens } : null;
      return { content: message.content ?? null, tool_calls: toolCalls, usage, raw_data: completion };
    };

    // The user simulator's guidelines are the tools variant when the user has tools (get_global_user_sim_guidelines).
    const guidelinesPath = domain.user ? "data/tau2/user_simulator/simulation_guidelines_tools.md" : "data/tau2/user_simulator/simulation_guidelines.md";
    const [dbText, userDbText, policyTexts, guidelines] = await Promise.all([
      readTau2File(config.data_dir, domain.dbPath),
      domain.user ? readTau2File(config.data_dir, domain.user.dbPath) : null,
      Promise.all(domain.policyPaths.map((p) => readTau2File(config.data_dir, p))),
      readTau2File(config.data_dir, guidelinesPath),
    ]);
    const loadDb = domain.loadDb ?? ((text: string) => JSON.parse(text));
    const fresh = () => ({ db: loadDb(dbText), userDb: domain.user && userDbText !== null ? domain.user.loadDb(userDbText) : null });
    const policy = domain.joinPolicies ? domain.joinPolicies(policyTexts) : policyTexts.join("\n");
    const task = row.task as unknown as Tau2Task;
    const start = Date.now();
    const startTime = new Date(start).toISOString();
    const world = fresh();
    const sim = await runSimulation({ domain, db: world.db, userDb: world.userDb, policy, userGuidelines: guidelines, task, maxSteps: config.max_steps, maxErrors: row.config.max_errors, maxAgentSteps: config.max_agent_steps, turnsRemainingInterval: config.turns_remaining_interval, generate });
    const duration = (Date.now() - start) / 1000;
    const nlServer = config.nl_assertions_model_server?.name;
    const judgeNl = nlServer
      ? async (messages: { role: string; content: string }[]) => {
          const completion = await chat(client, nlServer, `${prefix}/v1/chat/completions`, { model: "gpt-4.1-2025-04-14", messages, temperature: 0.0 }, signal);
          return String(completion.choices[0].message.content ?? "");
        }
      : undefined;
    const rewardInfo = await evaluateSimulation(sim, task, row.evaluation_type, fresh, judgeNl);

    const result = {
      id: `tau2-${domainName}-${task.id}-${start}`,
      task_id: task.id,
      start_time: startTime,
      end_time: new Date().toISOString(),
      duration,
      termination_reason: sim.terminationReason,
      agent_cost: 0,
      user_cost: 0,
      reward_info: rewardInfo,
      messages: sim.messages,
      agent_messages: sim.agentMessages,
      agent_steps: sim.agentSteps,
      max_agent_steps: sim.maxAgentSteps,
      seed: row.seed,
      mode: "half_duplex",
      policy,
    };

    const { input, output } = responseItems(sim.messages, sim.agentMessages);

    const prompt: number[] = [];
    const completion: number[] = [];
    let numAgentCalls = 0;
    for (const m of sim.messages) {
      if (m.role !== "assistant") continue;
      numAgentCalls++;
      if (m.usage) {
        prompt.push(m.usage.prompt_tokens);
        completion.push(m.usage.completion_tokens);
      }
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const stat = (f: (xs: number[]) => number, xs: number[]) => (prompt.length ? f(xs) : null);
    const model = rcp.model ?? "";
    // NeMo's run() rewrites the row's config before handing it to τ²-bench, and answers it so rewritten.
    const [agentBase, userBase] = await Promise.all([client.baseUrl(config.model_server.name), client.baseUrl(config.user_model_server.name)]);
    const rowConfig = (rawRow as any).config;
    const answeredConfig = {
      ...rowConfig,
      llm_user: "openai/dummy user model",
      llm_args_user: { ...(rowConfig.llm_args_user ?? {}), api_base: `${userBase}${prefix}/v1`, api_key: "dummy api key", ...config.user_llm_args },
      llm_agent: "openai/dummy agent model",
      llm_args_agent: { api_base: `${agentBase}${prefix}/v1`, api_key: "dummy api key", ...agentArgs },
      max_steps: config.max_steps,
      max_agent_steps: config.max_agent_steps,
      turns_remaining_interval: config.turns_remaining_interval,
    };
    return {
      ...rawRow,
      config: answeredConfig,
      responses_create_params: { input: [...(Array.isArray(rcp.input) ? rcp.input : []), ...input], model, parallel_tool_calls: rcp.parallel_tool_calls ?? true, tool_choice: rcp.tool_choice ?? "auto", tools: rcp.tools ?? [] },
      response: { id: `tau2-${domainName}-${task.id}`, created_at: Math.floor(Date.now() / 1000), object: "response", output, model, parallel_tool_calls: rcp.parallel_tool_calls ?? true, tool_choice: rcp.tool_choice ?? "auto", tools: rcp.tools ?? [] },
      reward: rewardInfo.reward,
      result,
      duration,
      num_steps: sim.messages.length,
      agent_steps: sim.agentSteps,
      max_agent_steps: sim.maxAgentSteps,
      num_agent_calls: numAgentCalls,
      min_prompt_tokens: stat((xs) => Math.min(...xs), prompt),
      min_completion_tokens: stat((xs) => Math.min(...xs), completion),
      mean_prompt_tokens: stat(mean, prompt),
      mean_completion_tokens: stat(mean, completion),
      max_prompt_tokens: stat((xs) => Math.max(...xs), prompt),
      max_completion_tokens: stat((xs) => Math.max(...xs), completion),
    };
  },

  // NeMo's compute_metrics (per domain rewards, termination reasons, finish reasons, transfers, hallucinated tools)
  // added to the base aggregate; the key metrics are the base mean/* ones (without the row's constant flags) plus these.
  async aggregateMetrics(body) {
    let extraKeys: string[] = [];
    return computeAggregateMetrics(body.verify_responses, {
      computeMetrics(tasks) {
        const extra = computeTau2Metrics(tasks as Record<string, any>[][]);
        extraKeys = Object.keys(extra);
        return extra;
      },
      keyMetrics(agentMetrics) {
        const dropped = new Set(["mean/seed", "mean/verbose_logs", "mean/audio_debug", "mean/audio_taps", "mean/auto_review"]);
        const key = Object.fromEntries(Object.entries(agentMetrics).filter(([k]) => k.startsWith("mean/") && !dropped.has(k)));
        return { ...key, ...Object.fromEntries(extraKeys.map((k) => [k, agentMetrics[k]])) };
      },
    });
  },
});
