// scripted_model as a judge, so judge environments run end to end without a model:
// - `judge_replay` answers a judge prompt with the judge answer a stored rollout recorded for that same prompt (any
//   `{responses_create_params, response}` pair nested in a rollout line: math_with_judge's `judge_evaluations`,
//   abstention's, genrm's…), so a reference rollout's reward is reproduced by replaying its judgement;
// - `judge_rules` answers with the first rule whose regular expression matches the prompt's text (tests).
// A prompt neither knows is a 404 (a failed judge call, never a verdict made up here).
import { readJsonl } from "../../src/rollouts/jsonl.ts";
import { inputItems, isMessage, messageText, type Item } from "./conversation.ts";

/** The prompt as the judge sees it: each message's role and text, in order (ids and item types aside). */
export function judgePromptKey(items: Item[]): string {
  return JSON.stringify(items.filter(isMessage).map((item) => [item.role === "developer" ? "system" : item.role, messageText(item)]));
}

/** The plain text a rule is matched against: the messages' texts joined by blank lines. */
export const judgePromptText = (items: Item[]) => items.filter(isMessage).map(messageText).join("\n\n");

/**
 * A GenRM pair request (genrm_compare) carries the two responses, and optionally the principle, in `metadata`;
 * NeMo Gym's genrm_model appends them as messages of the roles `principle`, `response_1`, `response_2`. The judge
 * modes do the same, so a rule or a recording sees the pair it judges.
 */
export function withGenRMRoles(items: Item[], metadata: unknown): Item[] {
  if (metadata === null || typeof metadata !== "object") return items;
  const { principle, response_1, response_2 } = metadata as Record<string, unknown>;
  const roles: Item[] = [];
  if (typeof principle === "string" && principle !== "") roles.push({ type: "message", role: "principle", content: principle });
  if (typeof response_1 === "string") roles.push({ type: "message", role: "response_1", content: response_1 });
  if (typeof response_2 === "string") roles.push({ type: "message", role: "response_2", content: response_2 });
  return roles.length === 0 ? items : [...items, ...roles];
}

export interface RecordedJudgement {
  output: Item[];
  usage: unknown;
  model: string;
}

export class JudgeReplayLibrary {
  private readonly byPrompt = new Map<string, RecordedJudgement[]>();
  private readonly nextPick = new Map<string, number>();
  size = 0;

  static fromFiles(paths: string[]): JudgeReplayLibrary {
    const library = new JudgeReplayLibrary();
    for (const path of paths) {
      for (const { row } of readJsonl(path)) library.collect(row, true);
    }
    return library;
  }

  /** Every nested request/answer pair below the rollout line itself (the top-level pair is the policy's turn). */
  private collect(value: unknown, isRolloutLine: boolean): void {
    if (Array.isArray(value)) {
      for (const element of value) this.collect(element, false);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const record = value as Item;
    const input = record.responses_create_params?.input ?? record.messages;
    const output = record.response?.output;
    if (!isRolloutLine && (typeof input === "string" || Array.isArray(input)) && Array.isArray(output)) {
      this.add(inputItems(input), output, record.response.usage ?? null, record.response.model ?? "recorded-judge");
      return;
    }
    for (const [key, nested] of Object.entries(record)) if (!(isRolloutLine && (key === "responses_create_params" || key === "response"))) this.collect(nested, false);
  }

  add(prompt: Item[], output: Item[], usage: unknown, model: string): void {
    const key = judgePromptKey(prompt);
    const recorded = this.byPrompt.get(key) ?? [];
    recorded.push({ output, usage, model });
    this.byPrompt.set(key, recorded);
    this.size++;
  }

  /** The recorded judgement of this prompt; several recordings of one prompt are dealt out in turn. */
  answer(prompt: Item[]): RecordedJudgement | undefined {
    const key = judgePromptKey(prompt);
    const recorded = this.byPrompt.get(key);
    if (!recorded) return undefined;
    const pick = this.nextPick.get(key) ?? 0;
    this.nextPick.set(key, pick + 1);
    return recorded[pick % recorded.length];
  }
}

export interface JudgeRule {
  match: RegExp;
  answer: string;
}

export function compileJudgeRules(rules: { match: string; answer: string; flags?: string }[]): JudgeRule[] {
  return rules.map((rule, index) => {
    try {
      return { match: new RegExp(rule.match, rule.flags ?? "s"), answer: rule.answer };
    } catch (error) {
      throw new Error(`scripted_model: judge_rules[${index}].match is not a valid regular expression: ${(error as Error).message}`);
    }
  });
}

export const ruleAnswer = (rules: JudgeRule[], prompt: Item[]) => rules.find((rule) => rule.match.test(judgePromptText(prompt)))?.answer;
