// scripted_model: the zero-setup policy. `replay` plays back recorded rollouts; `heuristic` calls the
// offered tools with arguments read from the user's text and then answers. Deterministic either way, and
// named honestly in every response's `model` field.
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { responseEnvelope, stableId, approxTokens, usageOf } from "../../src/models/response-envelope.ts";
import { TRAINING_KEYS, type NeMoGymResponse, type Usage } from "../../src/protocol/index.ts";
import { HttpError, responsesApiModel } from "../../src/server/index.ts";
import { inputItems, type Item } from "./conversation.ts";
import { fakeLogProbs, fakeTokenIds } from "./fake-tokens.ts";
import { heuristicTurn } from "./heuristic.ts";
import { ReplayLibrary, ReplayNoMatchError } from "./replay.ts";
import { compileJudgeRules, JudgeReplayLibrary, judgePromptText, ruleAnswer, withGenRMRoles, type JudgeRule } from "./judge.ts";

const ScriptedModelConfig = z.looseObject({
  mode: z.enum(["heuristic", "replay", "judge_replay", "judge_rules"]).default("heuristic"),
  /** Rollout JSONL files whose model turns `replay` plays back (relative to the working dir or the repo root). */
  replay_rollouts_jsonl_fpath: z.union([z.string(), z.array(z.string())]).nullish(),
  /** `judge_replay`: rollout JSONL files whose recorded judge calls (nested request/answer pairs) are played back. */
  judge_replay_jsonl_fpath: z.union([z.string(), z.array(z.string())]).nullish(),
  /** `judge_rules`: the first rule whose `match` (a regular expression; `flags` default "s") finds the prompt's text answers. */
  judge_rules: z.array(z.object({ match: z.string(), answer: z.string(), flags: z.string().optional() })).nullish(),
  /** Reported in `model`; defaults to `scripted-<mode>`. */
  model: z.string().nullish(),
  /** Attach seeded fake prompt/generation token ids and logprobs to the last item of each turn (training mode). */
  return_token_id_information: z.boolean().default(false),
  seed: z.number().int().default(0),
});
type ScriptedModelConfig = z.output<typeof ScriptedModelConfig>;

/** Relative paths resolve against the working directory, then the repository root (as NeMo Gym's configs assume). */
function resolveDataPath(path: string): string {
  if (isAbsolute(path)) return path;
  return [resolve(process.cwd(), path), resolve(PROJECT_ROOT, path)].find((candidate) => existsSync(candidate)) ?? path;
}

const TRAINING_KEY_SET: ReadonlySet<string> = new Set(TRAINING_KEYS);
const withoutTrainingFields = (item: Item): Item => Object.fromEntries(Object.entries(item).filter(([key]) => !TRAINING_KEY_SET.has(key)));

/**
 * The prompt's token ids as a server rendering the whole conversation would give them: the last earlier
 * turn's prompt and generation ids verbatim, then the items sent after it. Trainers (NeMo RL) check that
 * each turn's prompt ids start with everything seen before, so later turns must extend earlier ones.
 */
function promptTokenIds(items: Item[]): number[] {
  let ids: number[] = [];
  for (const item of items) {
    if (Array.isArray(item.prompt_token_ids) && Array.isArray(item.generation_token_ids)) ids = [...item.prompt_token_ids, ...item.generation_token_ids];
    else ids.push(...fakeTokenIds(JSON.stringify(withoutTrainingFields(item))));
  }
  return ids;
}

/** Token fields on the last item of the turn only (replayed items may carry recorded ones: those are dropped). */
function withTrainingFields(output: Item[], items: Item[], seed: number): Item[] {
  if (output.length === 0) return output;
  const plain = output.map(withoutTrainingFields);
  const generated = fakeTokenIds(JSON.stringify(plain));
  const last = {
    prompt_token_ids: promptTokenIds(items),
    generation_token_ids: generated,
    generation_log_probs: fakeLogProbs(generated.length, seed),
    ...plain.at(-1)!,
  };
  return [...plain.slice(0, -1), last];
}

// `promptText` is JSON.stringify(items), made once per call: stableId hashes a string part as it is, so the ids are
// the ones the items themselves would give.
function messageOutput(promptText: string, text: string): Item[] {
  return [{ id: stableId("msg", promptText, text), content: [{ annotations: [], text, type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" }];
}

function heuristicOutput(items: Item[], promptText: string, tools: unknown[], parallelToolCalls: boolean): Item[] {
  const functionTools = (tools as { type?: string; name: string; parameters: any }[]).filter((t) => t.type === "function");
  const turn = heuristicTurn(items, functionTools, parallelToolCalls);
  if (turn.kind === "message") {
    return [
      {
        id: stableId("msg", promptText, turn.text),
        content: [{ annotations: [], text: turn.text, type: "output_text", logprobs: null }],
        role: "assistant",
        status: "completed",
        type: "message",
      },
    ];
  }
  return turn.calls.map((call, index) => {
    const callId = stableId("call", promptText, index, call);
    return { arguments: JSON.stringify(call.arguments), call_id: callId, name: call.name, type: "function_call", id: callId.replace(/^call_/, "fc_"), status: "completed" };
  });
}

export default responsesApiModel({
  name: "ScriptedModel",
  config: ScriptedModelConfig,

  setup({ config }) {
    loadScript(config);
  },

  async responses({ params, rawParams }, { config }) {
    const state = loadScript(config);
    const items = inputItems(rawParams.input) as Item[];
    const promptText = JSON.stringify(items);
    let output: Item[];
    let usage: Usage | null;
    let model = config.model ?? `scripted-${config.mode}`;
    if (config.mode === "replay") {
      try {
        const turn = state.library!.nextTurn(items);
        output = turn.items;
        usage = (turn.usage as Usage | null) ?? null;
        model = config.model ?? `scripted-replay(${turn.model})`;
      } catch (error) {
        if (error instanceof ReplayNoMatchError) throw new HttpError(404, `scripted_model (replay): ${error.message}`);
        throw error;
      }
    } else if (config.mode === "judge_replay" || config.mode === "judge_rules") {
      const judged = withGenRMRoles(items, (rawParams as { metadata?: unknown }).metadata);
      const recorded = config.mode === "judge_replay" ? state.judgements!.answer(judged) : undefined;
      const ruled = config.mode === "judge_rules" ? ruleAnswer(state.rules!, judged) : undefined;
      if (recorded === undefined && ruled === undefined) {
        const what = config.mode === "judge_replay" ? "no recorded judgement has this prompt" : "no judge rule matches this prompt";
        throw new HttpError(404, `scripted_model (${config.mode}): ${what}: ${JSON.stringify(judgePromptText(judged).slice(0, 200))}`);
      }
      output = recorded ? (recorded.output as Item[]) : messageOutput(promptText, ruled!);
      usage = (recorded?.usage as Usage | null | undefined) ?? usageOf(approxTokens(promptText), approxTokens(JSON.stringify(output)));
      if (recorded) model = config.model ?? `scripted-judge_replay(${recorded.model})`;
    } else {
      output = heuristicOutput(items, promptText, params.tools ?? [], params.parallel_tool_calls !== false);
      usage = usageOf(approxTokens(promptText), approxTokens(JSON.stringify(output)));
    }
    if (config.return_token_id_information) output = withTrainingFields(output, items, config.seed ^ approxTokens(promptText));
    return responseEnvelope({ params, model, output: output as NeMoGymResponse["output"], usage, id: stableId("resp", promptText, config.mode) });
  },
});

/** The replay library is loaded once per server instance, at start-up, so a bad path fails the start. */
const states = new WeakMap<object, { library?: ReplayLibrary; judgements?: JudgeReplayLibrary; rules?: JudgeRule[] }>();
function loadScript(config: ScriptedModelConfig) {
  let state = states.get(config);
  if (!state) {
    state = {};
    if (config.mode === "replay") {
      const paths = [config.replay_rollouts_jsonl_fpath ?? []].flat();
      if (paths.length === 0) throw new Error("scripted_model: mode 'replay' needs replay_rollouts_jsonl_fpath (one path or a list)");
      state.library = ReplayLibrary.fromFiles(paths.map(resolveDataPath));
    }
    if (config.mode === "judge_replay") {
      const paths = [config.judge_replay_jsonl_fpath ?? []].flat();
      if (paths.length === 0) throw new Error("scripted_model: mode 'judge_replay' needs judge_replay_jsonl_fpath (one path or a list)");
      state.judgements = JudgeReplayLibrary.fromFiles(paths.map(resolveDataPath));
    }
    if (config.mode === "judge_rules") {
      if (!config.judge_rules || config.judge_rules.length === 0) throw new Error("scripted_model: mode 'judge_rules' needs judge_rules (a list of {match, answer})");
      state.rules = compileJudgeRules(config.judge_rules);
    }
    states.set(config, state);
  }
  return state;
}
