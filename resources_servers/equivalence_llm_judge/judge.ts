// One judge pass of equivalence_llm_judge: the configured template filled with (question, expected, generated),
// an optional system message, and the verdict read from the answer. The verdict is whichever label appears FIRST in
// the text of the answer's last output item's last content part; no label, or an answer whose last item is no
// message (or has no content), is "not equal" — never an error: NeMo Gym scores what the judge said.
import type { NeMoGymResponse, ResponseCreateParams } from "../../src/protocol/index.ts";
import { askJudge, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";

export interface Labels {
  equal: string;
  notEqual: string;
}

export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: NeMoGymResponse;
  /** The label the verdict was read from, or null when the answer holds neither. */
  verdict_label: string | null;
}

/** The label that decides, by NeMo Gym's rule: the equal label wins only if it appears and precedes the other. */
export function verdictOf(response: NeMoGymResponse, labels: Labels): { equal: boolean; label: string | null } {
  const last = response.output.at(-1) as { type?: unknown; content?: unknown } | undefined;
  if (last === undefined || last.type !== "message" || !Array.isArray(last.content)) return { equal: false, label: null };
  const part = last.content.at(-1) as { text?: unknown } | undefined;
  if (part === undefined) return { equal: false, label: null };
  const text = typeof part.text === "string" ? part.text : "";
  const equalAt = text.indexOf(labels.equal);
  const notEqualAt = text.indexOf(labels.notEqual);
  if (equalAt < 0 && notEqualAt < 0) return { equal: false, label: null };
  if (equalAt >= 0 && (notEqualAt < 0 || equalAt < notEqualAt)) return { equal: true, label: labels.equal };
  return { equal: false, label: labels.notEqual };
}

export interface Judge {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  /** The template text as NeMo Gym holds it (the file, stripped). */
  template: string;
  systemMessage: string | null | undefined;
  labels: Labels;
  /** The verify request: its rollout id goes on the judge call's path. */
  row: Record<string, unknown>;
}

/** The judge's messages for one pass: the system message unless empty, then the filled template. */
export function judgeInput(judge: Pick<Judge, "template" | "systemMessage">, question: string, expected: string, generated: string) {
  const prompt = pythonFormat(judge.template, [], { question, expected_answer: expected, generated_answer: generated });
  return [...(judge.systemMessage ? [{ role: "system" as const, content: judge.systemMessage }] : []), { role: "user" as const, content: prompt }];
}

/** Asks the judge once. A failed call is a JudgeError from askJudge, which /verify answers as the judge_failed row. */
export async function judgeOnce(judge: Judge, question: string, expected: string, generated: string): Promise<{ equal: boolean; evaluation: JudgeEvaluation }> {
  const { params, response } = await askJudge(judge.caller, judge.endpoint, judgeInput(judge, question, expected, generated), { row: judge.row });
  const verdict = verdictOf(response, judge.labels);
  return { equal: verdict.equal, evaluation: { responses_create_params: params, response, verdict_label: verdict.label } };
}
