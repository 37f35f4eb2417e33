// NeMo Gym's proof_refinement_agent: generate → verify → (correct → generate → verify)… The resources server says
// whether a failed proof may be corrected (`needs_correction`) and with what prompt (`correction_prompt`,
// math_formal_lean's contract); the agent counts the turns.
//   /v1/responses: one model call; a string input becomes one user message; the caller's cookies go with it.
//   /run: seed the row's session; then per turn (turn_index 0, 1, …):
//     1. POST its own /v1/responses (under the row's /ng-rollout/<id> prefix when observability is on) with the
//        input of this turn: the row's responses_create_params at turn 0, later
//        `{input: [{role: user, content: correction_prompt}], model, temperature?, top_p?}` (model as the row's,
//        null when unset; temperature and top_p only when set; nothing else of the row's params carries over);
//     2. POST /verify with the row, `response` = that answer and `turn_index`;
//     3. record the attempt {turn_index, input, response, generation, proof_status, reward, error_feedback,
//        correction_prompt} (generation: the first output_text of the last message that has one);
//     4. stop when needs_correction is falsy, when max_correction_turns − turn_index <= 0, or when the
//        correction_prompt is missing or empty; else the next turn.
//   The rollout is the last verify response with `total_turns` = turns run and, with include_all_attempts, the
//   attempts as `all_attempts` (else null). Its `response` is the last turn's, with that turn's usage (NeMo Gym adds
//   nothing up across turns).
import { z } from "zod";
import { ResponseCreateParamsSchema, type ResponseCreateParamsInput } from "../../src/protocol/index.ts";
import { alwaysVerifiesKeys, callModel, callOwnResponses, ownResponsesPath, responsesApiAgent, rolloutPathPrefix, seedSession, verifyRollout } from "../../src/server/index.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const ProofRefinementAgentConfig = z.looseObject({
  resources_server: ServerRef("resources_servers"),
  model_server: ServerRef("responses_api_models"),
  /** Correction turns after the first attempt; 0 (or less) = single turn. */
  max_correction_turns: z.number().int().default(0),
  /** Put every attempt into the rollout as `all_attempts` (training data). */
  include_all_attempts: z.boolean().default(true),
});

/** Python's truthiness of a JSON value. */
const pyTruthy = (value: unknown): boolean =>
  !(value === null || value === undefined || value === false || value === 0 || value === "" || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0));

/** NeMo Gym's `generation`: for each message with content, its first output_text part; the last such message wins. */
export function generationText(response: Record<string, unknown>): string {
  let text: unknown = "";
  const output = response.output;
  if (!pyTruthy(output) || !Array.isArray(output)) return "";
  for (const item of output as Record<string, unknown>[]) {
    if (item?.type !== "message" || !pyTruthy(item.content) || !Array.isArray(item.content)) continue;
    const part = (item.content as Record<string, unknown>[]).find((p) => p?.type === "output_text");
    if (part) text = "text" in part ? part.text : "";
  }
  return text as string;
}

/** `dict.get(key, default)`: absent → the default (an explicit null stays null). */
const get = (record: Record<string, unknown>, key: string, fallback: unknown = null): unknown => (Object.hasOwn(record, key) ? record[key] : fallback);

export default responsesApiAgent({
  name: "ProofRefinementAgent",
  config: ProofRefinementAgentConfig,
  refusedConfigKeys: alwaysVerifiesKeys("proof_refinement_agent"),

  async responses({ rawParams, cookies, rolloutId, signal }, agent) {
    // NeMo Gym's NeMoGymEasyInputMessage(role="user", content=...) as it is sent (its unset `type` left out).
    const json = typeof rawParams.input === "string" ? { ...rawParams, input: [{ content: rawParams.input, role: "user" }] } : rawParams;
    const answer = await callModel(agent, agent.config.model_server.name, `${rolloutPathPrefix(rolloutId)}/v1/responses`, { json, cookies, signal });
    return { response: answer.response, cookies: { ...cookies, ...answer.cookies } };
  },

  async run(call, agent) {
    const { config } = agent;
    const { row, signal } = call;
    const resources = config.resources_server.name;
    const selfPath = ownResponsesPath(row, agent);
    let cookies = await seedSession(agent, resources, call);
    const params = row.responses_create_params as ResponseCreateParamsInput & Record<string, unknown>;
    let currentInput: Record<string, unknown> = params;
    const attempts: Record<string, unknown>[] = [];
    let verifyResult: Record<string, unknown>;

    for (let turnIndex = 0; ; turnIndex++) {
      signal.throwIfAborted();
      const generated = await callOwnResponses(agent, selfPath, { json: currentInput, cookies, signal });
      // The session cookie is kept under the model's (NeMo Gym carries only each answer's own cookies on).
      cookies = { ...cookies, ...generated.cookies };
      const response = generated.json<Record<string, unknown>>();

      verifyResult = await verifyRollout(agent, resources, { json: { ...row, response, turn_index: turnIndex }, cookies, signal });

      attempts.push({
        turn_index: turnIndex,
        // Turn 0's input is the row's params as NeMo Gym's model dumps them (every field); later ones as built.
        input: turnIndex === 0 ? ResponseCreateParamsSchema.parse(params) : currentInput,
        response,
        generation: generationText(response),
        proof_status: get(verifyResult, "proof_status", "unknown"),
        reward: get(verifyResult, "reward", 0.0),
        error_feedback: get(verifyResult, "error_feedback"),
        correction_prompt: get(verifyResult, "correction_prompt"),
      });

      if (!pyTruthy(get(verifyResult, "needs_correction", false))) break;
      if (config.max_correction_turns - turnIndex <= 0) break;
      const correctionPrompt = get(verifyResult, "correction_prompt");
      if (!pyTruthy(correctionPrompt)) break;

      currentInput = { input: [{ role: "user", content: correctionPrompt }], model: params.model ?? null };
      for (const key of ["temperature", "top_p"] as const) if (params[key] !== undefined && params[key] !== null) currentInput[key] = params[key];
    }

    return { ...verifyResult, total_turns: attempts.length, all_attempts: config.include_all_attempts ? attempts : null };
  },
});
