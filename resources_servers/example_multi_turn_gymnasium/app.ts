// NeMo Gym's example_multi_turn_gymnasium: a scripted user. Each step before the last answers the row's next
// follow-up question, whatever the model said; the step after the last follow-up scores the model's answer: 1 when
// `expected_answer` appears in it (case-insensitively), else 0.
import { z } from "zod";
import { extractText, gymnasiumServer } from "../../src/server/index.ts";

export default gymnasiumServer({
  name: "ExampleMultiTurnEnv",
  metadata: z.object({
    follow_ups: z.array(z.string()).default([]),
    expected_answer: z.string().default(""),
  }),
  reset: () => ({ state: { turn: 0 } }),
  step: (episode, action, { follow_ups, expected_answer }) => {
    if (episode.turn < follow_ups.length) return { observation: follow_ups[episode.turn++]! };
    const answered = expected_answer !== "" && extractText(action).toLowerCase().includes(expected_answer.toLowerCase());
    return { reward: answered ? 1 : 0, terminated: true };
  },
});
