// reasoning-gym (open-thought): 100+ procedurally generated reasoning tasks, each scored by its own
// `score_answer`. The row names its task in `metadata.source_dataset`; the answer is read from the response text
// (last <answer> tag, else first \boxed{}, else the whole text) and scored by that task's scorer, ported in
// src/ports/reasoning-gym/. The reward is the score, fractional when the task gives partial credit.
import { z } from "zod";
import { HttpError, RequestValidationError, resourcesServer } from "../../src/server/index.ts";
import { jsonStr, jsonTruthy } from "../../src/python/json-value.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { ValueError } from "../../src/python/exception.ts";
import { extractAnswer } from "../../src/ports/reasoning-gym/answer-extraction.ts";
import { LIBRARY_TASKS, scorerFor, UnsupportedTaskError, type Scorer } from "../../src/ports/reasoning-gym/index.ts";

/** Every output_text of every message, joined with nothing between (a message's content may be a plain string). */
function responseText(response: NeMoGymResponse): string {
  const parts: string[] = [];
  for (const item of response.output as { type?: string; content?: unknown }[]) {
    if (item.type !== "message") continue;
    if (typeof item.content === "string") parts.push(item.content);
    else for (const part of (item.content ?? []) as { type?: string; text?: string }[]) if (part.type === "output_text") parts.push(part.text ?? "");
  }
  return parts.join("");
}

/**
 * The scorer of the row's task. No task name is NeMo Gym's deliberate ValueError (a 500). A reasoning-gym task
 * without a scorer here is a 501 (NeMo Gym would score it: the row is a typed failure, not a made-up 0.0); a name
 * reasoning-gym does not know is a 422 naming metadata.source_dataset (NeMo Gym scores it 0.0, hiding the typo).
 */
function taskScorer(metadata: Record<string, unknown>): { task: string; scorer: Scorer } {
  const task = metadata.source_dataset;
  if (!jsonTruthy(task)) throw new ValueError(`No task name found in metadata: ${jsonStr(metadata)}`);
  // A name that is no string fails NeMo Gym's response model (task_name: str): also a 500.
  if (typeof task !== "string") throw new TypeError(`task_name: Input should be a valid string, got ${jsonStr(task)}`);
  try {
    return { task, scorer: scorerFor(task) };
  } catch (error) {
    if (!(error instanceof UnsupportedTaskError)) throw error;
    if (LIBRARY_TASKS.has(task)) throw new HttpError(501, error.message);
    throw new RequestValidationError([{ type: "value_error", loc: ["body", "metadata", "source_dataset"], msg: error.message, input: task }]);
  }
}

export default resourcesServer({
  name: "ReasoningGymResourcesServer",
  tools: {},
  verify: {
    input: z.object({
      question: z.string(),
      answer: z.string().nullable(),
      metadata: z.record(z.string(), z.unknown()),
    }),
    run(_state, { response, question, answer, metadata }, { server }) {
      const extracted = extractAnswer(responseText(response));
      const { task, scorer } = taskScorer(metadata);
      let score: number;
      try {
        score = scorer(extracted, { question, answer, metadata });
      } catch (error) {
        // NeMo Gym prints the exception and scores 0.0.
        server.log.warn(`Error scoring answer for task ${task}: ${(error as Error)?.message ?? error}`);
        score = 0;
      }
      return { reward: score, task_name: task, score, extracted_answer: extracted };
    },
  },
  floatFields: ["score"],
});
