// An agent for collection tests whose /run does what each row asks (`behavior`): answer, fail with a 5xx,
// hang, fail a few times then answer, reject the request, answer without a reward, report its own
// failure, ask not to be persisted, or relay an inner server's 422 / 501 as NeMo Gym's inner-server 500. It counts the attempts it saw per (task, rollout).
import { z } from "zod";
import { HttpError, InnerServerError, responsesApiAgent } from "../../src/server/index.ts";

export type Behavior = "ok" | "fail" | "hang" | "flaky" | "reject" | "no_reward" | "report_failure" | "no_persist" | "slow" | "inner_refused" | "inner_unsupported";

export const attemptsSeen = new Map<string, number>();

export const fakeAgent = responsesApiAgent({
  name: "FakeAgent",
  config: z.looseObject({}),
  async responses() {
    throw new HttpError(404, "this fake agent only serves /run");
  },
  async run({ row, signal }) {
    const key = `${row._ng_task_index}:${row._ng_rollout_index}`;
    const attempt = (attemptsSeen.get(key) ?? 0) + 1;
    attemptsSeen.set(key, attempt);
    const behavior = (row.behavior ?? "ok") as Behavior;
    const answer = { responses_create_params: row.responses_create_params, response: { id: `resp_${key}`, output: [] }, reward: Number(row.reward ?? 1) };
    switch (behavior) {
      case "ok":
        return answer;
      case "slow":
        await new Promise((resolve) => setTimeout(resolve, Number(row.delay_ms ?? 20)));
        return answer;
      case "fail":
        throw new Error(`verify blew up for ${key}`);
      case "hang":
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
        throw new Error("unreachable");
      case "flaky":
        if (attempt <= Number(row.failures ?? 1)) throw new HttpError(503, `attempt ${attempt} of ${key} is overloaded`);
        return answer;
      case "reject":
        throw new HttpError(400, `row ${key} is malformed`);
      case "no_reward":
        return { responses_create_params: row.responses_create_params, response: {} };
      case "report_failure":
        return { _ng_failure_class: "sandbox_crashed", _ng_failure_terminal: true, error: `sandbox of ${key} died` };
      case "no_persist":
        return { _ng_no_persist: true };
      case "inner_refused":
        throw new InnerServerError(422, `{"detail":"row ${key} lacks a field"}`, "env/verify");
      case "inner_unsupported":
        throw new InnerServerError(501, `{"detail":"row ${key} cannot be scored here"}`, "env/verify");
    }
  },
});
