// OpenAI MRCR (multi-round coreference resolution, https://huggingface.co/datasets/openai/mrcr): the official grading
// function, as NeMo Gym's MRCRResourcesServer ports it from NeMo-Skills:
// - the response is the output text, stripped;
// - it must start with the row's random_string_to_prepend, else the reward is 0.0;
// - otherwise that prefix is removed from it and from expected_answer (where it starts it), and the reward is
//   difflib's SequenceMatcher(None, response, answer).ratio() (src/python/difflib.ts);
// - prefix_matched and seq_match_ratio (= the reward) are reported after the echoed row fields.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { pythonStrip, removePrefix } from "../../src/python/index.ts";
import { sequenceRatio } from "../../src/python/difflib.ts";
import { longContextKeyMetrics, rewardMetricsByNamedSubset } from "../../src/ports/long-context/index.ts";

export default resourcesServer({
  name: "MRCRResourcesServer",
  tools: {},
  verify: {
    input: z.object({ expected_answer: z.string(), random_string_to_prepend: z.string(), n_needles: z.number().int(), n_tokens: z.number().int() }),
    run(_state, { response, expected_answer, random_string_to_prepend, n_needles, n_tokens }) {
      const text = pythonStrip(responseOutputText(response));
      const prefix_matched = text.startsWith(random_string_to_prepend);
      const ratio = prefix_matched ? sequenceRatio(removePrefix(text, random_string_to_prepend), removePrefix(expected_answer, random_string_to_prepend)) : 0;
      return { reward: ratio, expected_answer, random_string_to_prepend, n_needles, n_tokens, prefix_matched, seq_match_ratio: ratio };
    },
  },
  floatFields: ["seq_match_ratio"],
  computeMetrics: (tasks) => rewardMetricsByNamedSubset(tasks, "n_needles"),
  keyMetrics: longContextKeyMetrics,
});
