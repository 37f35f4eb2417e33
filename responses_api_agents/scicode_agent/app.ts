// NeMo Gym's scicode_agent: a SciCode problem is written one sub-step at a time. For each sub-step the agent fills
// the prompt with the earlier steps (and the code the model wrote for them), the next step's description and
// function header, and the problem's dependencies; asks the model once (through its own /v1/responses); keeps the
// answer's code block. Step i's solution is the dependencies, the code of steps before it, then its own code. After
// the last step, `POST <resources_server>/verify` gets the row, `solutions` ({"<problem_id>.<step>": code}) and the
// last step's response. No /seed_session.
//
// A model server refusing a prompt as too long for its context window fails that step and every later one (the
// `_ran_out_of_context_` solution, which the environment scores 0 unrun). Anything else that is not the servers' own
// answer — a transport error, a timeout, a 502/503/504, a body that is not their JSON — ends the attempt as a typed
// failure (src/client/inner-answer.ts), never a score.
import { statSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ResponseSchema, type NeMoGymResponse } from "../../src/protocol/index.ts";
import { HttpError, InnerServerError } from "../../src/protocol/errors.ts";
import { responseOutputText } from "../../src/protocol/gym.ts";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { computeAggregateMetrics } from "../../src/metrics/index.ts";
import { alwaysVerifiesKeys, callModel, callOwnResponses, ownResponsesPath, responsesApiAgent, rolloutPathPrefix, verifyRollout, withListInput } from "../../src/server/index.ts";
import { fillStepPrompt, PromptPathSchema } from "./prompt.ts";
import { extractPythonCode, isContextWindowMessage, isPrefilled, OUT_OF_CONTEXT, requireSubSteps, stepContext } from "./steps.ts";
import { scicodeKeyMetrics, scicodeMetrics } from "./metrics.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const ScicodeAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  /** The per-sub-step prompt (prompt.ts): read and checked when the config is. */
  prompt_fpath: PromptPathSchema,
  /** Put each sub-step's scientific background (`step_background`) into the prompt. */
  with_background: z.boolean().default(true),
  /**
   * Ours (NeMo Gym embeds the code): where SciCode's reference code of its prefilled sub-steps is read from, as
   * `<problem_id>.<step>.txt`; relative paths resolve under the Gym roots. Read only when a problem has one.
   */
  prefilled_code_dir: z.string().default("benchmarks/scicode/data/prefilled"),
});
type Config = z.output<typeof ScicodeAgentConfig>;

const RunRow = z.looseObject({ problem_id: z.string(), sub_steps: z.array(z.unknown()), required_dependencies: z.string() });

/** What /verify gets as `response` when no sub-step was generated: NeMo Gym's empty response, as pydantic dumps it. */
const emptyResponse = () => ResponseSchema.parse({ id: "scicode", created_at: 0.0, model: "", object: "response", output: [], parallel_tool_calls: false, tool_choice: "auto", tools: [] });

/** SciCode's reference code of a prefilled sub-step, stripped as NeMo Gym stores it; missing is a 501 naming the file. */
function prefilledCode(config: Config, problemId: string, step: number): string {
  const file = join(config.prefilled_code_dir, `${problemId}.${step + 1}.txt`);
  const { path, found } = resolveUnderRoots(file, searchRoots(), (candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false);
  if (!found) {
    throw new HttpError(
      501,
      `scicode_agent: sub-step ${problemId}.${step + 1} is prefilled with SciCode's reference code, which this project does not ship; ` +
        `put it at ${path} (NeMo Gym's responses_api_agents/scicode_agent/step_utils.py holds it as PREFILLED_STEPS_CODE) or set prefilled_code_dir`,
    );
  }
  return readFileSync(path, "utf8").replace(/^\s+|\s+$/g, "");
}

/**
 * An own error answer of this agent's /v1/responses saying the model refused the prompt as longer than its context
 * window (NeMo Gym's markers). That answer quotes the model's body as a Python bytes repr inside a JSON string, so
 * the decoded string is searched too, with a quote the repr may have escaped.
 */
function isContextWindowError(error: unknown): boolean {
  if (!(error instanceof InnerServerError)) return false;
  let decoded = "";
  try {
    const body: unknown = JSON.parse(error.body);
    decoded = typeof body === "string" ? body : JSON.stringify(body);
  } catch {
    // not JSON: the raw text is all there is
  }
  return [error.body, decoded, decoded.replaceAll("\\'", "'")].some(isContextWindowMessage);
}

export default responsesApiAgent({
  name: "ScicodeAgent",
  config: ScicodeAgentConfig,
  // NeMo Gym's run verifies whatever these say (only its /aggregate_metrics would go empty): refused, not half-done.
  refusedConfigKeys: alwaysVerifiesKeys("scicode_agent"),

  // One model call, as given; the caller's cookies go with it and the model's come back.
  async responses({ rawParams, cookies, rolloutId, signal }, agent) {
    return callModel(agent, agent.config.model_server.name, `${rolloutPathPrefix(rolloutId)}/v1/responses`, { json: withListInput(rawParams), cookies, signal });
  },

  async run({ row, cookies: callerCookies, signal }, agent) {
    const { config } = agent;
    const checked = RunRow.safeParse(row);
    if (!checked.success) throw new HttpError(422, `scicode_agent needs problem_id, sub_steps and required_dependencies: ${checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const { problem_id: problemId, required_dependencies: dependencies } = checked.data;
    const subSteps = requireSubSteps(checked.data.sub_steps, config.with_background);

    const selfPath = ownResponsesPath(row, agent);
    let cookies = callerCookies;
    const codeSoFar: string[] = [];
    const solutions: Record<string, string> = {};
    let outOfContext = false;
    let lastResponse: NeMoGymResponse | undefined;

    for (let step = 0; step < subSteps.length; step++) {
      const key = `${problemId}.${step + 1}`;
      // A prefilled step is context for the later ones, never scored: no solution entry.
      if (isPrefilled(problemId, step)) {
        codeSoFar[step] = prefilledCode(config, problemId, step);
        continue;
      }
      if (outOfContext) {
        solutions[key] = OUT_OF_CONTEXT;
        continue;
      }
      const context = stepContext(subSteps, step, codeSoFar, config.with_background);
      const previousCode = context.previousCode ? `${dependencies}\n${context.previousCode}\n` : `${dependencies}\n`;
      const content = fillStepPrompt(config.prompt_fpath, { problem_steps_str: context.problemSteps, next_step_str: context.nextStep, dependencies });

      let answer;
      try {
        answer = await callOwnResponses(agent, selfPath, { json: { input: [{ role: "user", content }] }, cookies, signal });
      } catch (error) {
        if (!isContextWindowError(error)) throw error;
        outOfContext = true;
        solutions[key] = OUT_OF_CONTEXT;
        continue;
      }
      cookies = answer.cookies;
      lastResponse = answer.json<NeMoGymResponse>();
      const code = extractPythonCode(responseOutputText(ResponseSchema.parse(lastResponse)));
      codeSoFar[step] = code;
      solutions[key] = `${previousCode}\n${code}`;
    }

    return verifyRollout(agent, config.resources_server.name, { json: { ...row, solutions, response: lastResponse ?? emptyResponse() }, cookies, signal });
  },

  // Computed here, as NeMo Gym's agent does: the reward profile plus SciCode's pooled sub-step accuracy.
  async aggregateMetrics(body) {
    return computeAggregateMetrics(body.verify_responses, { computeMetrics: scicodeMetrics, keyMetrics: scicodeKeyMetrics });
  },
});
