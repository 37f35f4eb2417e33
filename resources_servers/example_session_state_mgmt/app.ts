// A counter per rollout: seeded from the row, changed by tools, checked by verify.
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";

interface Counter {
  count: number;
}

export default resourcesServer({
  name: "StatefulCounterResourcesServer",
  seed: z.object({ initial_count: z.number().int() }),
  // A tool called before /seed_session starts the counter at 0, as NeMo Gym's server does.
  state: (seed): Counter => ({ count: seed?.initial_count ?? 0 }),
  // Plain data: replicas can share it (`session_store: redis://…`).
  stateCodec: "json",
  tools: {
    increment_counter: tool({
      description: "Add a number to the counter.",
      input: z.object({ count: z.number().int().describe("How much to add.") }),
      run: (counter: Counter, { count }) => {
        counter.count += count;
        return { success: true };
      },
    }),
    get_counter_value: tool({
      description: "Read the counter.",
      input: z.object({}),
      run: (counter: Counter) => ({ count: counter.count }),
    }),
  },
  verify: {
    input: z.object({ expected_count: z.number().int() }),
    // No session (never seeded, never touched) scores 0.
    run: (counter, { expected_count }) => (counter !== undefined && counter.count === expected_count ? 1 : 0),
  },
});
