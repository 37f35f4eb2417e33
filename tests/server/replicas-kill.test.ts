// Three replicas (separate processes) of example_session_state_mgmt and of workplace_assistant, sessions in the real
// Redis, behind a round-robin proxy, so a rollout's consecutive calls hit different replicas. One replica of each is
// SIGKILLed mid-run. Every rollout must end with the single-process run's reward and tool answers: none lost (each
// ends with a result), none duplicated (no call applied twice: the answers would differ).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Redis } from "ioredis";
import { HttpClient } from "../../src/client/http-client.ts";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { functionCallItem, readRows, responseWith, startReplicas, startRoundRobinProxy, startServers, type Replica, type RoundRobinProxy, type InProcessGraph } from "../../src/testing/index.ts";
import counterServer from "../../resources_servers/example_session_state_mgmt/app.ts";
import workplaceServer from "../../resources_servers/workplace_assistant/app.ts";
import { IDEMPOTENCY_KEY_HEADER } from "../../src/protocol/failures.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const REPEATS = 6; // 5 rows of each environment × 6 = 30 rollouts each
const CONCURRENCY = 8;
const MAX_ATTEMPTS = 3;
const run = randomBytes(4).toString("hex");

type Row = Record<string, any>;
interface Env {
  name: string;
  instance: string;
  folder: string;
  rows: Row[];
  /** The tool calls of a rollout of `row`, in order. */
  calls(row: Row): { name: string; args: Record<string, unknown> }[];
  response(row: Row): unknown;
}

const counterEnv: Env = {
  name: "example_session_state_mgmt",
  instance: `counter_${run}`,
  folder: "resources_servers/example_session_state_mgmt",
  rows: readRows(join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt/data/example.jsonl")),
  calls(row) {
    // The difference in three additions, then the read: an addition applied twice (or lost) changes every later answer.
    const delta = row.expected_count - row.initial_count;
    const parts = [Math.floor(delta / 3), Math.floor(delta / 3), delta - 2 * Math.floor(delta / 3)];
    return [...parts.map((count) => ({ name: "increment_counter", args: { count } })), { name: "get_counter_value", args: {} }];
  },
  response: () => responseWith([]),
};

const workplaceEnv: Env = {
  name: "workplace_assistant",
  instance: `workplace_${run}`,
  folder: "resources_servers/workplace_assistant",
  rows: readRows(join(PROJECT_ROOT, "resources_servers/workplace_assistant/data/example.jsonl")),
  // The row's expected calls, twice: a second mail, task or customer gets the next id, so a call applied twice shows.
  calls: (row) => [...row.ground_truth, ...row.ground_truth].map((call: { name: string; arguments: string }) => ({ name: call.name, args: JSON.parse(call.arguments) })),
  response: (row) => responseWith(row.ground_truth.map((call: { name: string; arguments: string }, i: number) => functionCallItem(call.name, JSON.parse(call.arguments), `call_${i}`))),
};

interface Rollout {
  env: Env;
  id: string;
  row: Row;
}
interface Result {
  reward: number;
  answers: string[];
}

// The two environments' rollouts interleaved, so both are mid-run when the replicas die.
const rollouts: Rollout[] = Array.from({ length: REPEATS }, (_, repeat) =>
  [counterEnv, workplaceEnv].flatMap((env) => env.rows.map((row, task) => ({ env, id: `${env.name}/${task}-${repeat}`, row: { ...row, _ng_task_index: task, _ng_rollout_index: repeat } }))),
).flat();

// The agent's client: transport retries of keyed calls (a reset may hide a call that ran), connect timeouts, deadlines.
const client = new HttpClient({ connectTimeoutMs: 2_000, deadlineMs: 20_000, maxRetries: 3, retryBackoffMs: 100 });

class AttemptFailed extends Error {}

/** One attempt: seed, the calls (each with its idempotency key), verify; any infrastructure failure ends it. */
async function attempt(baseUrl: string, rollout: Rollout, attemptIndex: number): Promise<Result> {
  const post = async (path: string, json: unknown, cookies: Record<string, string>, idempotencyKey?: string) => {
    let answer;
    try {
      answer = await client.request(`${baseUrl}${path}`, { method: "POST", json, cookies, idempotencyKey });
    } catch (error) {
      throw new AttemptFailed(`${path}: ${(error as Error).message}`);
    }
    if (answer.status !== 200) throw new AttemptFailed(`${path}: ${answer.status} ${answer.text}`);
    return answer;
  };
  const seeded = await post("/seed_session", rollout.row, {});
  const cookies = seeded.cookies;
  const answers: string[] = [];
  for (const [step, call] of rollout.env.calls(rollout.row).entries()) {
    answers.push((await post(`/${call.name}`, call.args, cookies, `${rollout.id}#${attemptIndex}:${step}`)).text);
  }
  const verified = await post("/verify", { ...rollout.row, response: rollout.env.response(rollout.row) }, cookies);
  return { reward: verified.json<{ reward: number }>().reward, answers };
}

interface RunFigures {
  results: Map<string, Result>;
  failedAttempts: string[];
}

/** Every rollout, `concurrency` at a time; a failed attempt is retried from a fresh session, as the collector does. */
async function runAll(urlOf: (env: Env) => string, concurrency: number, onDone?: (done: number) => void): Promise<RunFigures> {
  const results = new Map<string, Result>();
  const failedAttempts: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rollouts.length) {
      const rollout = rollouts[next++]!;
      for (let attemptIndex = 0; attemptIndex < MAX_ATTEMPTS; attemptIndex++) {
        try {
          results.set(rollout.id, await attempt(urlOf(rollout.env), rollout, attemptIndex));
          break;
        } catch (error) {
          if (!(error instanceof AttemptFailed)) throw error;
          failedAttempts.push(`${rollout.id} attempt ${attemptIndex}: ${error.message}`);
        }
      }
      onDone?.(results.size);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { results, failedAttempts };
}

let single: InProcessGraph;
const replicas: Record<string, Replica[]> = {};
const proxies: Record<string, RoundRobinProxy> = {};
const redis = new Redis(REDIS_URL);

before(async () => {
  single = await startServers({ [counterEnv.instance]: [counterServer], [workplaceEnv.instance]: [workplaceServer] });
  await Promise.all(
    [counterEnv, workplaceEnv].map(async (env) => {
      const config = {
        session_secret: `replicas-${run}`,
        [env.instance]: { resources_servers: { [env.name]: { entrypoint: "app.ts", domain: "agent", session_store: REDIS_URL, session_lock_lease_s: 1 } } },
      };
      replicas[env.name] = await startReplicas(config, env.instance, 3);
      proxies[env.name] = await startRoundRobinProxy(replicas[env.name]!);
    }),
  );
});

after(async () => {
  await single?.close();
  await Promise.all(Object.values(proxies).map((proxy) => proxy.close()));
  await Promise.all(Object.values(replicas).flat().map((replica) => replica.kill("SIGKILL")));
  await client.close();
  const keys = [...(await redis.keys(`ng:sessions:*:${counterEnv.instance}:*`)), ...(await redis.keys(`ng:sessions:*:${workplaceEnv.instance}:*`))];
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

test("rollouts through 3 replicas with one SIGKILLed mid-run: rewards and answers equal the single-process run, none lost, none duplicated", async () => {
  const baseline = await runAll((env) => single.url(env.instance), 1);
  assert.equal(baseline.results.size, rollouts.length, baseline.failedAttempts.join("\n"));

  // A third of the way in, the first replica of each environment dies without a chance to clean up, at a moment the
  // proxy has a request of it in flight (or after 2 s without one).
  let killedAt: number | undefined;
  const killed: Promise<void>[] = [];
  const killMidCall = async (env: Env) => {
    const victim = replicas[env.name]![0]!;
    const giveUpAt = Date.now() + 2_000;
    while (proxies[env.name]!.inFlight(victim) === 0 && Date.now() < giveUpAt) await new Promise((resolve) => setImmediate(resolve));
    killedInFlight[env.name] = proxies[env.name]!.inFlight(victim);
    await victim.kill("SIGKILL");
  };
  const killedInFlight: Record<string, number> = {};
  const replicated = await runAll(
    (env) => proxies[env.name]!.url,
    CONCURRENCY,
    (done) => {
      if (killedAt !== undefined || done < rollouts.length / 3) return;
      killedAt = done;
      for (const env of [counterEnv, workplaceEnv]) killed.push(killMidCall(env));
    },
  );
  await Promise.all(killed);

  const lost = rollouts.filter((rollout) => !replicated.results.has(rollout.id));
  const differing = rollouts.filter((rollout) => {
    const got = replicated.results.get(rollout.id);
    return got !== undefined && JSON.stringify(got) !== JSON.stringify(baseline.results.get(rollout.id));
  });
  const rewardsEqual = rollouts.every((rollout) => replicated.results.get(rollout.id)?.reward === baseline.results.get(rollout.id)!.reward);
  const meanReward = (results: Map<string, Result>) => [...results.values()].reduce((sum, result) => sum + result.reward, 0) / results.size;
  const figures = {
    rollouts: rollouts.length,
    completed: replicated.results.size,
    lost: lost.length,
    duplicated: differing.length,
    rewards_equal_single_process: rewardsEqual,
    mean_reward: { single_process: meanReward(baseline.results), replicas: meanReward(replicated.results) },
    killed_after_rollouts: killedAt,
    requests_in_flight_on_killed_replica: killedInFlight,
    failed_attempts_retried: replicated.failedAttempts.length,
    proxy: Object.fromEntries(Object.entries(proxies).map(([name, proxy]) => [name, { answered_by: proxy.answeredBy, refused_dead_replica: proxy.refused, callers_reset: proxy.resets, of_them_keyed_tool_calls_replayed: proxy.keyedResets }])),
  };
  console.log(`replicas kill test: ${JSON.stringify(figures, null, 2)}`);
  if (replicated.failedAttempts.length > 0) console.log(`failed attempts (retried):\n  ${replicated.failedAttempts.join("\n  ")}`);

  assert.ok(killedAt !== undefined && killedAt < rollouts.length, "the kill happened mid-run");
  assert.deepEqual(lost.map((rollout) => rollout.id), []);
  assert.deepEqual(differing.map((rollout) => rollout.id), []);
  assert.ok(rewardsEqual);
  // The kill was felt: the proxies met the dead replicas, and the survivors served every environment afterwards.
  for (const env of [counterEnv, workplaceEnv]) {
    assert.ok(proxies[env.name]!.refused > 0, `${env.name}: the dead replica was skipped`);
    const [dead, ...alive] = replicas[env.name]!;
    assert.ok((proxies[env.name]!.answeredBy[`${dead!.host}:${dead!.port}`] ?? 0) > 0, `${env.name}: the killed replica had served calls`);
    for (const replica of alive) assert.ok((proxies[env.name]!.answeredBy[`${replica.host}:${replica.port}`] ?? 0) > 0);
  }
  // A sanity check of the scenario itself: the rewards are not all 0.
  assert.ok(meanReward(baseline.results) > 0.5);
});

test("a keyed call replayed after its replica died answers as the first try did", async () => {
  // Direct to two live replicas: the answer stored by one is the answer of the other, byte for byte.
  const [a, b] = replicas[counterEnv.name]!.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null);
  const seeded = await client.request(`${a!.url}/seed_session`, { method: "POST", json: { initial_count: 1 } });
  const headers = { [IDEMPOTENCY_KEY_HEADER]: "direct:0" };
  const first = await client.request(`${a!.url}/increment_counter`, { method: "POST", json: { count: 2 }, cookies: seeded.cookies, headers });
  const replay = await client.request(`${b!.url}/increment_counter`, { method: "POST", json: { count: 2 }, cookies: seeded.cookies, headers });
  assert.equal(first.text, '{"success":true}');
  assert.equal(replay.text, first.text);
  assert.equal((await client.request(`${b!.url}/get_counter_value`, { method: "POST", json: {}, cookies: seeded.cookies })).text, '{"count":3}');
});
