import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, injectServer, readRows, sharedDataFile, withoutNullParams, type InjectedServer } from "../../../src/testing/index.ts";
import googleSearch, { boxParser, pythonContentRepr } from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const FIXTURE = "data/example_search_fixture.jsonl";
let env: InjectedServer;
before(async () => (env = await injectServer(googleSearch, { search_fixture_path: FIXTURE }, { instanceName: "google_search" })));
after(() => env.close());

const message = (text: string) => ({ id: "msg", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const responseWith = (output: unknown[]) => ({ id: "r", created_at: 1, model: "m", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] });
const verify = (row: Record<string, unknown>, output: unknown[]) => env.post("/verify", { ...row, response: responseWith(output) });

/** A fake Google Programmable Search on loopback, answering by a script. */
async function fakeGoogle(script: (response: ServerResponse, call: number, url: URL) => void) {
  const calls: URL[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    calls.push(url);
    script(response, calls.length, url);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/customsearch/v1`, calls };
}
const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
};
const live = (url: string, extra: Record<string, unknown> = {}) => injectServer(googleSearch, { google_api_key: "key-1", google_cx: "cx-1", search_base_url: url, search_max_retries: 2, search_retry_backoff_s: 0.001, ...extra }, { instanceName: "google_search" });

test("search answers NeMo Gym's {search_results: json.dumps(google answer)} from the fixture", async () => {
  const answer = await env.post("/search", { query: "SI unit of capacitance" });
  assert.equal(answer.status, 200);
  const searchResults = answer.json<{ search_results: string }>().search_results;
  assert.ok(searchResults.startsWith('{"kind": "customsearch#search", "queries": {"request": [{"searchTerms": "SI unit of capacitance", "count": 1}]}'), searchResults);
});

test("browse answers the fixture's page text, 'No text found' for an empty page and 'No HTML found' for none", async () => {
  assert.equal((await env.post("/browse", { url: "https://encyclopedia.example.org/farad" })).json<{ page_content: string }>().page_content.split("\n")[0], "Farad");
  assert.deepEqual((await env.post("/browse", { url: "https://notes.example.com/empty" })).json(), { page_content: "No text found" });
  assert.deepEqual((await env.post("/browse", { url: "https://notes.example.com/unreachable" })).json(), { page_content: "No HTML found" });
});

test("a query missing from the fixture is a 503 naming the query, never a tool text", async () => {
  const answer = await env.post("/search", { query: "not in the fixture" });
  assert.equal(answer.status, 503);
  assert.match(answer.text, /has no entry for query \\"not in the fixture\\"/);
});

test("live search sends key, cx and q; a 429 is retried and the answer then served", async () => {
  const google = await fakeGoogle((response, call) => (call === 1 ? send(response, 429, { error: { code: 429 } }, { "retry-after": "0" }) : send(response, 200, { kind: "customsearch#search", items: [{ title: "T\u00e9" }] })));
  const server = await live(google.url);
  after(() => server.close());
  const answer = await server.post("/search", { query: "caf\u00e9" });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json<{ search_results: string }>().search_results, '{"kind": "customsearch#search", "items": [{"title": "T\\u00e9"}]}');
  assert.equal(google.calls.length, 2);
  assert.deepEqual(Object.fromEntries(google.calls[1]!.searchParams), { key: "key-1", cx: "cx-1", q: "caf\u00e9" });
});

test("live search: 5xx on every attempt is a 502 typed failure after the bounded retries", async () => {
  const google = await fakeGoogle((response) => send(response, 500, { error: "backend" }));
  const server = await live(google.url);
  after(() => server.close());
  const answer = await server.post("/search", { query: "q" });
  assert.equal(answer.status, 502);
  assert.match(answer.json<{ detail: string }>().detail, /google_custom_search failed after 3 attempt\(s\): HTTP 500/);
  assert.equal(google.calls.length, 3);
});

test("live search: a repeated query is served from the cache", async () => {
  const google = await fakeGoogle((response, call) => send(response, 200, { call }));
  const server = await live(google.url);
  after(() => server.close());
  await server.post("/search", { query: "once" });
  const again = await server.post("/search", { query: "once" });
  assert.equal(again.json<{ search_results: string }>().search_results, '{"call": 1}');
  assert.equal(google.calls.length, 1);
});

const ARTICLE = `<html><head><title>Tapirs</title></head><body><nav><a href="/">Home</a> | <a href="/zoo">Zoo</a></nav>
<article><h1>Tapirs of the Andes</h1><p>The mountain tapir is the smallest of the four   species of tapir. It lives in
the Andes, between 2,000 and 4,300 metres.</p><p>Fewer than 2,500 remain in the wild, according to the IUCN.</p>
<ul><li>Diet: leaves</li><li>Weight: 150 kg</li></ul></article><footer>© 2026 Zoo</footer></body></html>`;

test("live browse fetches the page (redirects followed) and gives its main text, one block a line, no navigation", async () => {
  const pages = createServer((request, response) => {
    const path = request.url ?? "/";
    if (path === "/old") response.writeHead(301, { location: "/article" }).end();
    else if (path === "/article") response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE);
    else if (path === "/empty") response.writeHead(200, { "content-type": "text/html" }).end("<html><head><title>nothing</title></head><body><script>1</script></body></html>");
    else response.writeHead(404).end("not here");
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  after(() => new Promise<void>((resolve) => pages.close(() => resolve())));
  const site = { url: `http://127.0.0.1:${(pages.address() as AddressInfo).port}` };
  const server = await live(site.url);
  after(() => server.close());
  const page = async (path: string) => (await server.post("/browse", { url: `${site.url}${path}` })).json<{ page_content: string }>().page_content;
  assert.equal(
    await page("/old"),
    "Tapirs of the Andes\nThe mountain tapir is the smallest of the four species of tapir. It lives in the Andes, between 2,000 and 4,300 metres.\nFewer than 2,500 remain in the wild, according to the IUCN.\nDiet: leaves\nWeight: 150 kg",
  );
  // NeMo Gym's texts for no page (trafilatura.fetch_url's None) and no readable text (extract's None, split).
  assert.equal(await page("/missing"), "No HTML found");
  assert.equal(await page("/empty"), "Error: Unexpected error = 'NoneType' object has no attribute 'split'");
  assert.equal((await server.post("/browse", { url: "http://127.0.0.1:9/refused" })).json<{ page_content: string }>().page_content, "No HTML found");
});

test("a missing google_api_key or google_cx fails at start, naming the key", async () => {
  await assert.rejects(injectServer(googleSearch, { google_cx: "cx" }), /google_api_key is not set/);
  await assert.rejects(injectServer(googleSearch, { google_api_key: "k" }), /google_cx is not set/);
});

test("verify: the option in \\boxed{} equal to expected_answer scores 1.0", async () => {
  const answer = await verify(rows[0]!, [message("Nitrogen.\n\n\\boxed{B}")]);
  assert.equal(answer.json<{ reward: number }>().reward, 1);
  assert.equal(answer.json<{ parsed_option: string }>().parsed_option, "B");
  assert.equal(answer.json<{ expected_answer: string }>().expected_answer, "B");
});

test("verify reads the repr of the content, as NeMo Gym does: \\boxed{\\text{B}} parses as \\\\text{B", async () => {
  const answer = await verify(rows[0]!, [message("so \\boxed{\\text{B}}")]);
  assert.deepEqual([answer.json<{ reward: number }>().reward, answer.json<{ parsed_option: string }>().parsed_option], [0, "\\\\text{B"]);
});

test("verify without a boxed answer, or ending on a tool call, scores 0.0 with parsed_option null", async () => {
  const noBox = await verify(rows[0]!, [message("B")]);
  assert.deepEqual([noBox.json<{ reward: number }>().reward, noBox.json<{ parsed_option: null }>().parsed_option], [0, null]);
  const call = { type: "function_call", call_id: "c", name: "search", arguments: "{}", id: "fc", status: "completed" };
  assert.equal((await verify(rows[0]!, [message("\\boxed{B}"), call])).json<{ reward: number }>().reward, 0);
});

test("verify without expected_answer is a 422 naming it", async () => {
  const { expected_answer: _drop, ...row } = rows[0]!;
  const answer = await verify(row, [message("\\boxed{B}")]);
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<{ detail: { loc: string[] }[] }>().detail[0]!.loc, ["body", "expected_answer"]);
});

test("the content repr is Python's: quotes, escapes and the model names", () => {
  assert.equal(pythonContentRepr([{ type: "output_text", text: "it's \\x\n", annotations: [] }]), `[NeMoGymResponseOutputText(annotations=[], text="it's \\\\x\\n", type='output_text', logprobs=None)]`);
  assert.equal(boxParser("None"), null);
  assert.equal(boxParser("a \\boxed{A} b \\boxed{B}"), "A");
});

test("the example data has 5 valid rows offering exactly the served tools", async () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, googleSearch.toolDefinitions);
});

// NeMo Gym's stored rollouts carry no expected_answer: it is joined from its example.jsonl by the prompt.
const reference = sharedDataFile("google_search/data/example_rollouts.jsonl");
const referenceRows = sharedDataFile("google_search/data/example.jsonl");
test("re-verifying NeMo Gym's reference rollouts reproduces every reward and parsed_option", { skip: reference.skip || referenceRows.skip }, async () => {
  const byInput = new Map(readRows(referenceRows.path!).map((row) => [JSON.stringify((row.responses_create_params as { input: unknown }).input), row]));
  const stored = readRows(reference.path!);
  assert.equal(stored.length, 5);
  for (const rollout of stored) {
    const row = byInput.get(JSON.stringify((rollout.responses_create_params as { input: unknown }).input));
    assert.ok(row, "every reference rollout has its example row");
    const { reward, parsed_option, ...request } = rollout;
    const answer = await env.post("/verify", { ...withoutNullParams(request), expected_answer: row.expected_answer, task_difficulty_qwen3_32b_avg_8: row.task_difficulty_qwen3_32b_avg_8 });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual([answer.json<{ reward: number }>().reward, answer.json<{ parsed_option: string }>().parsed_option], [reward, parsed_option]);
  }
});
