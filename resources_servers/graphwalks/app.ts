// OpenAI GraphWalks (https://huggingface.co/datasets/openai/graphwalks): BFS / parents over a long edge list, graded
// by F1 over node sets, as NeMo Gym's GraphWalksResourcesServer ports it from NeMo-Skills:
// - the answer is the node list of `Final Answer: [...]` on the output text's last non-empty line, items stripped
//   (quotes kept); without it parse_failed is true and the reward 0.0;
// - the expected nodes are the set of json.loads(expected_answer) (empty when it is no JSON list);
// - both empty scores 1.0, one empty 0.0, else 2·P·R / (P + R); reward = f1 (src/ports/long-context/node-list.ts);
// - predicted_nodes is the parsed list as written (order and repeats kept).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { nullDefault } from "../../src/python/pydantic/index.ts";
import { expectedNodeSet, longContextKeyMetrics, nodeSetF1, parseFinalAnswerNodes, rewardMetricsByNamedSubset } from "../../src/ports/long-context/index.ts";

export default resourcesServer({
  name: "GraphWalksResourcesServer",
  tools: {},
  verify: {
    input: z.object({ expected_answer: z.string(), problem_type: z.string(), n_tokens: nullDefault(z.number().int()), prompt_chars: nullDefault(z.number().int()) }),
    run(_state, { response, expected_answer, problem_type, n_tokens, prompt_chars }) {
      const { nodes, parseFailed } = parseFinalAnswerNodes(responseOutputText(response));
      const f1 = nodeSetF1(nodes, expectedNodeSet(expected_answer), parseFailed);
      return { reward: f1, expected_answer, problem_type, n_tokens, prompt_chars, f1, parse_failed: parseFailed, predicted_nodes: nodes };
    },
  },
  floatFields: ["f1"],
  computeMetrics: (tasks) => rewardMetricsByNamedSubset(tasks, "problem_type"),
  keyMetrics: longContextKeyMetrics,
});
