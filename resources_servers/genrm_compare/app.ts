// GenRM pairwise comparison (RLHF / GRPO rewards): the rollouts of one prompt are compared in pairs by a generative
// reward model, and each rollout's reward is its score relative to its cohort (cohort.ts). The GenRM model is asked
// through /v1/responses with the conversation as `input` and the pair in `metadata` (response_1, response_2 and, with
// use_principle, principle), which NeMo Gym's genrm_model server turns into the model's special roles. POST /compare
// scores a batch of responses in one request.
import { createHash } from "node:crypto";
import { z } from "zod";
import { askJudge, HttpError, JudgeError, judgeEndpoint, resourcesServer, type JudgeEndpoint, type ServerContext } from "../../src/server/index.ts";
import { floatRepr } from "../../src/python/float.ts";
import { aggregateScores, AGGREGATOR_METHODS, COMPARISON_STRATEGIES, comparisonPairs, type ComparisonSlot } from "./aggregate.ts";
import { answerShownToJudge, GenRMOutputParseError, parseGenRMOutput, type PairScores } from "./genrm-output.ts";
import { CohortTable } from "./cohort.ts";

const Config = z.looseObject({
  genrm_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  genrm_responses_create_params: z.record(z.string(), z.unknown()),
  num_rollouts_per_prompt: z.number().int().default(1),
  comparison_strategy: z.enum(COMPARISON_STRATEGIES).default("circular"),
  num_judges_per_comparison: z.number().int().default(1),
  use_principle: z.boolean().default(false),
  // NeMo Gym's default principle is prose in its app.py, not shipped here: a row that would need it is a 501.
  default_principle: z.string().nullish(),
  aggregator_method: z.enum(AGGREGATOR_METHODS).default("simple_tiebreaker"),
  reasoning_bonus: z.number().default(0.0),
  answer_bonus: z.number().default(0.0),
  top_percentile: z.number().default(0.2),
  group_reasoning_length_penalty_coeff: z.number().default(0.0),
  group_answer_length_penalty_coeff: z.number().default(0.0),
  group_style_penalty_coeff: z.number().default(0.0),
  default_score: z.number().default(3.0),
  default_ranking: z.number().default(3.5),
  debug_logging: z.boolean().default(false),
  genrm_parse_retries: z.number().int().default(3),
  genrm_parse_retry_sleep_s: z.number().default(0.2),
});
type Config = z.output<typeof Config>;

/** A message of the conversation before the compared responses. */
interface HistoryMessage {
  role: string;
  content: string;
}

/** The conversation as the judge sees it: role and content of each input message, content parts as their output_text. */
function conversationHistory(input: unknown): HistoryMessage[] {
  if (!Array.isArray(input)) return [];
  return input.map((message) => {
    const m = (message ?? {}) as Record<string, unknown>;
    let content: unknown = m.content ?? "";
    if (Array.isArray(content)) content = content.map((part) => (part?.type === "output_text" ? String(part.text ?? "") : "")).join("");
    return { role: String(m.role ?? "user"), content: String(content) };
  });
}

/** The cohort a rollout belongs to: its task (or caller's prompt id) and a digest of its prompt and principle. */
function cohortKey(body: { responses_create_params: { input?: unknown }; _ng_task_index?: number | null; prompt_id?: string | null }, principle: string | null | undefined): string {
  const promptKey = createHash("sha256")
    .update(canonicalJson({ input: body.responses_create_params.input ?? [], principle: principle ?? null }))
    .digest("hex");
  if (body._ng_task_index !== undefined && body._ng_task_index !== null) return `task_idx::${body._ng_task_index}::${promptKey}`;
  if (body.prompt_id !== undefined && body.prompt_id !== null) return `prompt_id::${body.prompt_id}::${promptKey}`;
  return promptKey;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One judgement of a pair: asked again while the answer holds no scores, then the defaults (NeMo Gym's fallback). */
async function judgePair(server: ServerContext<Config>, endpoint: JudgeEndpoint, history: HistoryMessage[], first: unknown, second: unknown, principle: string | undefined, row: Record<string, unknown>): Promise<PairScores> {
  const config = server.config;
  const metadata: Record<string, string> = { response_1: answerShownToJudge(first), response_2: answerShownToJudge(second) };
  if (config.use_principle) metadata.principle = principle!;
  const withPair = { ...endpoint, params: { ...endpoint.params, metadata } };
  const input = history.map((message) => ({ role: message.role as "user", content: message.content, type: "message" as const }));
  const attempts = Math.max(1, config.genrm_parse_retries + 1);
  for (let attempt = 0; attempt < attempts; attempt++) {
    // A failed call is a JudgeError: the rollouts it would score answer the judge_failed row.
    const { text } = await askJudge(server, withPair, input, { row });
    try {
      return parseGenRMOutput(text, config.default_score, config.default_ranking);
    } catch (error) {
      if (!(error instanceof GenRMOutputParseError)) throw error;
      if (attempt < attempts - 1) await sleep(config.genrm_parse_retry_sleep_s * 1000);
      else server.log.warn(`[GenRM] Parse failed after ${attempts} attempts; falling back to defaults. ${error.message}`);
    }
  }
  return { score1: config.default_score, score2: config.default_score, ranking: config.default_ranking };
}

const adjustmentsOf = (config: Config) => ({
  reasoningBonus: config.reasoning_bonus,
  answerBonus: config.answer_bonus,
  topPercentile: config.top_percentile,
  reasoningLengthPenaltyCoeff: config.group_reasoning_length_penalty_coeff,
  answerLengthPenaltyCoeff: config.group_answer_length_penalty_coeff,
  stylePenaltyCoeff: config.group_style_penalty_coeff,
});

/** The principle a comparison is judged by: the row's, else the configured default; none is needed without use_principle. */
function principleFor(config: Config, rowPrinciple: string | null | undefined): string | undefined {
  if (!config.use_principle) return rowPrinciple ?? undefined;
  const principle = rowPrinciple || config.default_principle;
  if (!principle) {
    throw new HttpError(501, "genrm_compare: use_principle is set and this row has no principle; NeMo Gym's default_principle text is not shipped here — set default_principle in the config or give the row a principle");
  }
  return principle;
}

const cohorts = new WeakMap<object, CohortTable>();
const cohortsOf = (server: object) => {
  let table = cohorts.get(server);
  if (!table) cohorts.set(server, (table = new CohortTable()));
  return table;
};

const genrmEndpoint = (config: Config) => judgeEndpoint(config, { server: "genrm_model_server", params: "genrm_responses_create_params" });

const CompareRequest = z.object({
  conversation_history: z.array(z.record(z.string(), z.string())),
  response_objs: z.array(z.record(z.string(), z.unknown())),
  principle: z.string().nullish(),
});

/** /compare's JSON as FastAPI writes it: rewards, scores and metrics are floats ("4.0"). */
function compareBody(rewards: number[], results: Array<{ slot: ComparisonSlot; judgement: PairScores }> | null, metrics: Record<string, number> | null): string {
  const float = (x: number) => (Number.isNaN(x) ? "NaN" : Number.isFinite(x) ? floatRepr(x) : x > 0 ? "Infinity" : "-Infinity");
  const detailed = results?.map(({ slot, judgement }) => `{"response_i":${slot.i},"response_j":${slot.j},"judge_idx":${slot.judgeIndex},"score_1":${float(judgement.score1)},"score_2":${float(judgement.score2)},"ranking":${float(judgement.ranking)}}`);
  const metricsText = metrics && `{${Object.entries(metrics).map(([name, value]) => `${JSON.stringify(name)}:${float(value)}`).join(",")}}`;
  return `{"rewards":[${rewards.map(float).join(",")}],"comparison_results":${detailed ? `[${detailed.join(",")}]` : "null"},"metrics":${metricsText ?? "null"}}`;
}

export default resourcesServer({
  name: "GenRMCompareResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({
      principle: z.string().nullish(),
      _ng_task_index: z.number().int().nullish(),
      _ng_rollout_index: z.number().int().nullish(),
      prompt_id: z.string().nullish(),
    }),
    async run(_state, body, { config, server }) {
      if (config.num_rollouts_per_prompt <= 1) return config.default_score;
      const input = body.responses_create_params.input;
      if (!Array.isArray(input)) throw new HttpError(422, "responses_create_params.input: genrm_compare groups and judges a list of messages, got a string");
      const principle = principleFor(config, body.principle);
      const history = conversationHistory(input);
      const endpoint = genrmEndpoint(config);
      const row = body as unknown as Record<string, unknown>;
      return cohortsOf(server).join(cohortKey(body, body.principle), body.response, {
        cohortSize: config.num_rollouts_per_prompt,
        strategy: config.comparison_strategy,
        judgesPerComparison: config.num_judges_per_comparison,
        compare: (responses, slot) => judgePair(server, endpoint, history, responses[slot.i], responses[slot.j], principle, row),
        aggregate: (judgements, slots, responses) => {
          const { rewards } = aggregateScores(judgements, slots, responses, config.default_score, adjustmentsOf(config));
          if (config.debug_logging) server.log.info(`[GenRM] cohort rewards: ${rewards.map((r) => r.toFixed(4)).join(", ")}`);
          return rewards;
        },
      });
    },
  },
  routes(app, server) {
    // The batch API: every pair of the strategy judged at once, the rewards in the order of response_objs.
    app.post("/compare", async (request, reply) => {
      const parsed = CompareRequest.safeParse(request.body);
      if (!parsed.success) return reply.code(422).send({ detail: parsed.error.issues.map((issue) => ({ loc: ["body", ...issue.path], msg: issue.message })) });
      const config = server.config;
      const { conversation_history, response_objs, principle: rowPrinciple } = parsed.data;
      reply.type("application/json");
      if (config.debug_logging) server.log.info(`[GenRM] Compare request: ${response_objs.length} responses`);
      if (response_objs.length < 2) return reply.send(compareBody([config.default_score], null, null));
      const principle = principleFor(config, rowPrinciple);
      const history = conversation_history.map((m) => ({ role: m.role ?? "user", content: m.content ?? "" }));
      const endpoint = genrmEndpoint(config);
      const slots: ComparisonSlot[] = [];
      for (let judgeIndex = 0; judgeIndex < config.num_judges_per_comparison; judgeIndex++) {
        for (const [i, j] of comparisonPairs(config.comparison_strategy, response_objs.length)) slots.push({ i, j, judgeIndex });
      }
      let judgements: PairScores[];
      try {
        judgements = await Promise.all(slots.map((slot) => judgePair(server, endpoint, history, response_objs[slot.i], response_objs[slot.j], principle, {})));
      } catch (error) {
        // No failure row here (this is no verify): the failed judge call is the caller's 502, never made-up scores.
        if (error instanceof JudgeError) return reply.code(502).send(JSON.stringify({ detail: `genrm judge call failed: ${error.message}` }));
        throw error;
      }
      const { rewards, metrics } = aggregateScores(judgements, slots, response_objs, config.default_score, adjustmentsOf(config));
      return reply.send(compareBody(rewards, slots.map((slot, k) => ({ slot, judgement: judgements[k]! })), metrics));
    });
  },
});
