// Scripted model servers for the tau2 agent's tests: each a queue of turns (responses items, or "fail" for an outage)
// that records what it was asked, and the items a turn is made of.
import { z } from "zod";
import { responsesApiModel } from "../../../src/server/index.ts";

export type Item = Record<string, unknown>;
type Turn = Item[] | "fail";

export function scripted(name: string) {
  const turns: Turn[] = [];
  const requests: Record<string, any>[] = [];
  const definition = responsesApiModel({
    name,
    config: z.looseObject({}),
    async responses({ params, rawParams }) {
      requests.push(structuredClone(rawParams) as Record<string, any>);
      const turn = turns.shift();
      if (turn === undefined) throw new Error(`${name}: no scripted turn left`);
      if (turn === "fail") throw Object.assign(new Error("scripted outage"), { statusCode: 503 });
      return { id: `resp_${requests.length}`, created_at: 1, model: name, object: "response", output: turn, parallel_tool_calls: true, tool_choice: "auto", tools: params.tools, usage: { input_tokens: 10 * requests.length, output_tokens: requests.length, total_tokens: 11 * requests.length, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } as any;
    },
  });
  return { definition, turns, requests };
}

export const say = (text: string): Item[] => [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }];
let callCount = 0;
export const call = (name: string, args: unknown): Item[] => [{ type: "function_call", call_id: `call_${++callCount}`, name, arguments: JSON.stringify(args), id: `fc_${callCount}`, status: "completed" }];
export const calls = (...cs: [string, unknown][]): Item[] => cs.flatMap(([n, a]) => call(n, a));

