// Multi-turn calendar scheduling. Each row is a conversation so far (system rules, then user requests and
// the assistant's earlier calendars) ending with a user turn; the model answers once, with no tools, and its
// answer must print the whole calendar as a JSON list that satisfies every request made so far.
import { z } from "zod";
import type { ResponseOutputItem } from "../../src/protocol/index.ts";
import { resourcesServer } from "../../src/server/index.ts";
import { AttributeError } from "../../src/python/exception.ts";
import { gradeAssistantResponse } from "./grading.ts";

/**
 * The text of the last output item: `output[-1].content[0].text` when that item has content, else "".
 * A reasoning item (a model cut off while thinking) has no content here, so it reads as "". A part without
 * `.text` raises AttributeError in NeMo Gym, outside the grader's try: a 500, reproduced as one.
 */
function lastItemText(output: ResponseOutputItem[]): string {
  const last = output.at(-1);
  if (last === undefined || !("content" in last)) return "";
  const content: unknown = last.content;
  if (typeof content !== "string" && !Array.isArray(content)) return "";
  if (content.length === 0) return "";
  if (typeof content === "string") throw new AttributeError("'str' object has no attribute 'text'");
  // Only an assistant output message (it has an id) holds parts that are objects; input parts are TypedDicts.
  if (!("id" in last)) throw new AttributeError("'dict' object has no attribute 'text'");
  const first = content[0] as { type: string; text?: string };
  if (first.type !== "output_text" || typeof first.text !== "string") throw new AttributeError("'NeMoGymResponseOutputRefusal' object has no attribute 'text'");
  return first.text;
}

export default resourcesServer({
  name: "CalendarResourcesServer",
  tools: {},
  verify: {
    input: z.object({
      /** Event id → {event_id, duration, constraint, min_time, max_time}; empty when nothing was to change. */
      exp_cal_state: z.record(z.string(), z.unknown()),
    }),
    run(_state, { response, exp_cal_state }) {
      const text = lastItemText(response.output);
      if (!text) return 0;
      const [reward] = gradeAssistantResponse(text, exp_cal_state);
      return reward;
    },
  },
});
