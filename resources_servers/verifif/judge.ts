// VerifIF's judge: one call per free-form `llm_judge` question, asked the way NeMo Gym's TuringVIFResourcesServer asks
// (the question prompt as the system message, "Evaluate the response." as the user turn; the Responses API with a
// developer message for reasoning models, chat completions otherwise), with its input and output caps, and its
// [[YES]]/[[NO]] reading of the answer.
import { askJudge, askJudgeChat, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { pythonStrip } from "../../src/python/str.ts";

// NeMo Gym's vif_validators LLM_JUDGE_QUESTION_PROMPT (the judge's whole instruction; parity depends on the exact text).
export const LLM_JUDGE_QUESTION_PROMPT = `
You are an impartial LLM-Judge. Evaluate the model response based strictly on the specific question provided below.

QUESTION TO EVALUATE AGAINST:
{question}

MODEL RESPONSE TO EVALUATE:
{model_response}

Does the model's response satisfy the criterion described in the evaluation question?
Analyze carefully, then respond with exactly [[YES]] or [[NO]] on the last line.
`;

/** Models NeMo Gym asks through the Responses API (a substring of the lower-cased model name). */
const REASONING_MODELS = ["gpt-5", "o1", "o3", "o4-mini"];
export const isReasoningModel = (model: string) => REASONING_MODELS.some((name) => model.toLowerCase().includes(name));

export interface VerifIFJudge {
  caller: JudgeCaller;
  /** The judge server instance (`judge_server_name`). */
  serverName: string;
  row: Record<string, unknown>;
  model: string;
  temperature: number;
  topP: number;
  maxTokens: number;
  maxSystemChars: number | null;
  maxUserChars: number | null;
  maxOutputChars: number | null;
}

/** The first n characters (code points), as Python slices. */
const head = (text: string, n: number | null) => (n !== null && Array.from(text).length > n ? Array.from(text).slice(0, n).join("") : text);

/** One judge call; a failed call is a JudgeError (NeMo Gym records it, finishes the row, then raises it: the same judge_failed row). */
export async function askVerifIFJudge(judge: VerifIFJudge, user: string, system: string): Promise<string> {
  const systemContent = head(system, judge.maxSystemChars);
  const userContent = head(user, judge.maxUserChars);
  let out: string;
  if (isReasoningModel(judge.model)) {
    const endpoint: JudgeEndpoint = { serverName: judge.serverName, params: { model: judge.model, max_output_tokens: judge.maxTokens } };
    const { response } = await askJudge(judge.caller, endpoint, [{ role: "developer", content: systemContent }, { role: "user", content: userContent }], { row: judge.row });
    out = response.output.flatMap((item) => (item.type === "message" && Array.isArray(item.content) ? item.content.flatMap((part) => (part.type === "output_text" ? [part.text] : [])) : [])).join("");
  } else {
    const endpoint: JudgeEndpoint = { serverName: judge.serverName, params: { model: judge.model, temperature: judge.temperature, top_p: judge.topP, max_tokens: judge.maxTokens } };
    const { text } = await askJudgeChat(judge.caller, endpoint, [{ role: "system", content: systemContent }, { role: "user", content: userContent }], { row: judge.row });
    out = text;
  }
  return head(out, judge.maxOutputChars);
}

/** `<think>…</think>` / `<thinking>…</thinking>` blocks and everything up to an unpaired closing tag removed, stripped. */
export function stripThinkingTraces(text: string): string {
  text = text.replace(/<think>.*?<\/think>/gs, "").replace(/<thinking>.*?<\/thinking>/gs, "");
  text = text.replace(/^.*?<\/think>/s, "").replace(/^.*?<\/thinking>/s, "");
  return pythonStrip(text);
}

/**
 * Whether the judge said YES, and the message kept: the label occurring last decides; with neither, a last line that
 * is exactly YES or NO (any case, stripped) does; otherwise NO, with a message quoting the answer's first 500 characters.
 */
export function readJudgeVerdict(answer: string): [boolean, string] {
  const evaluation = stripThinkingTraces(answer);
  const lastYes = evaluation.lastIndexOf("[[YES]]");
  const lastNo = evaluation.lastIndexOf("[[NO]]");
  if (lastYes >= 0 || lastNo >= 0) return [lastYes > lastNo, evaluation];
  const stripped = pythonStrip(evaluation);
  const lastLine = pythonStrip(stripped.slice(stripped.lastIndexOf("\n") + 1)).toUpperCase();
  if (lastLine === "YES" || lastLine === "NO") return [lastLine === "YES", evaluation];
  return [false, `No [[YES]]/[[NO]] marker found in judge response: ${Array.from(evaluation).slice(0, 500).join("")}`];
}

/** A free-form question put to the judge about the response: [judge said YES, message]. */
export async function judgeQuestion(judge: VerifIFJudge, response: string, question: string): Promise<[boolean, string]> {
  const prompt = pythonFormat(LLM_JUDGE_QUESTION_PROMPT, [], { question, model_response: response });
  return readJudgeVerdict(await askVerifIFJudge(judge, "Evaluate the response.", prompt));
}
