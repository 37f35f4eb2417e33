// The public test kit: what `gym env test`, `gym dataset validate` and every environment's own tests use to start
// servers, read rows and check them. Environment folders import it (never `tests/`):
//
//   servers.ts         injectServer (a definition's routes through fastify inject, no socket), startServers (a graph
//                      on loopback ports), overHttp, http (a test HTTP client), testConfig
//   in-process.ts      startInProcess: a resolved config's whole graph in this process, real HTTP
//   child-process.ts   startGym / runGym: the `gym` command as a child process; processesWithMarker, waitUntilDead
//   rows.ts            readRows / readRowLines / exampleRows (FILE:LINE on a bad line), assertRowsAreRunRequests,
//                      assertRowToolsMatchServer
//   tool-drift.ts      THE rule for "a row's tools equal GET /tools" (names and argument shapes must equal;
//                      descriptions, titles and strict may differ; read its header): compareTools, toolDrift
//   verifier-cases.ts  data/verifier_cases.jsonl: reading, replaying as `gym env test` does, assertVerifierCasesScore
//   requests.ts        assistantMessage, functionCallItem, responseWith: the model output /verify scores
//   shared-data.ts     sharedDataFile / sharedDataDir: NeMo Gym's reference data in ../shared, or a skip reason
//   parity.ts          parity with NeMo Gym: replay graph, stored rollouts re-verified, reference set, end to end
//   fake-vllm.ts       a scripted vLLM over HTTP; fake-relax.ts: a Relax session API; ports.ts: refusedPort
//   replicas.ts        startReplicas: N processes of one instance (session_store redis, a shared session_secret);
//                      round-robin-proxy.ts: a balancer in front of them that skips dead ones
//
// An environment's test (resources_servers/<name>/tests/app.test.ts):
//
//   import { after, before, test } from "node:test";
//   import assert from "node:assert/strict";
//   import { join } from "node:path";
//   import { assertRowToolsMatchServer, assertVerifierCasesScore, injectServer, readRows, type InjectedServer } from "../../../src/testing/index.ts";
//   import counter from "../app.ts";
//
//   let env: InjectedServer;
//   before(async () => (env = await injectServer(counter)));
//   after(() => env.close());
//
//   test("seed, increment, read: one session", async () => {
//     const session = env.session();
//     await session.post("/seed_session", { initial_count: 3 });
//     await session.post("/increment_counter", { count: 1 });
//     assert.deepEqual((await session.post("/get_counter_value", {})).json(), { count: 4 });
//   });
//   test("the example rows offer the served tools", () => assertRowToolsMatchServer(readRows(join(import.meta.dirname, "../data/example.jsonl")), counter.toolDefinitions));
//   test("verifier cases score", () => assertVerifierCasesScore(env, join(import.meta.dirname, "../data/verifier_cases.jsonl")));
export * from "./servers.ts";
export * from "./in-process.ts";
export * from "./child-process.ts";
export * from "./rows.ts";
export * from "./tool-drift.ts";
export * from "./verifier-cases.ts";
export * from "./requests.ts";
export * from "./shared-data.ts";
export * from "./parity.ts";
export * from "./fake-vllm.ts";
export * from "./fake-relax.ts";
export * from "./ports.ts";
export * from "./nemo-config-fields.ts";
export * from "./fake-hf-hub.ts";
export * from "./round-robin-proxy.ts";
export * from "./replicas.ts";
