// finance_sec_search over real HTTP: the tools' text from the fixture, SEC.gov faked on loopback (User-Agent, retries,
// typed failures), the retrieval model and the [[N]] judge (scripted_model), the submit_final_result gate.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { http, injectServer, readRows, responseWith, assistantMessage, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import finance from "../app.ts";
import { parseHtmlToText } from "../html.ts";

const DIR = join(import.meta.dirname, "..");
const rows = readRows(join(DIR, "data/example.jsonl"));
const FIXTURE = "data/example_search_fixture.jsonl";
const URL10K = "https://www.sec.gov/Archives/edgar/data/1234567/000123456724000031/acme-20241231.htm";
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const PROMPTS = { judge_prompt_template: "Q: {question}\nGold: {expected_answer}\nGot: {generated_answer}\n", retrieval_system_prompt: "Read the documents." };
const judgeRules = [
  { match: "Got: exactly right", answer: "Correct. [[2]]" },
  { match: "Got: partly right", answer: "Partial. [[1]]" },
  { match: "Got: wrong", answer: "No. [[0]]" },
  { match: "Got: unrated", answer: "I will not rate this." },
];
const retrievalRules = [{ match: "48,300,000 shares", answer: "48.3 million shares" }];

let graph: InProcessGraph;
const client = http();
before(async () => {
  const common = { search_fixture_path: FIXTURE, ...PROMPTS, judge_retry_backoff_s: 0.001 };
  graph = await startServers({
    fin: [finance, { ...common, tavily_api_key: null, retrieval_model_server: { type: "responses_api_models", name: "retrieval" }, judge_model_server: { type: "responses_api_models", name: "judge" }, judge_responses_create_params: { input: [] } }],
    scaled: [finance, { ...common, reward_mode: "scaled", judge_model_server: { type: "responses_api_models", name: "judge" }, judge_responses_create_params: { input: [] } }],
    substring: [finance, { ...common, max_end_date: "2025-06-30", max_filing_results: 2 }],
    judge: [scriptedModel, { mode: "judge_rules", judge_rules: judgeRules }],
    retrieval: [scriptedModel, { mode: "judge_rules", judge_rules: retrievalRules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});
const post = (server: string, path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url(server)}${path}`, { method: "POST", json, cookies });
const session = async (server: string) => (await post(server, "/seed_session", rows[0])).cookies;
const results = async (server: string, path: string, json: unknown, cookies?: Record<string, string>) => {
  const answer = await post(server, path, json, cookies);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ results: string }>().results;
};

describe("html to text", () => {
  test("scripts and styles are dropped, entities decoded, lines stripped and split on double spaces", () => {
    assert.equal(parseHtmlToText("<html><style>p{}</style><script>x()</script><p> A&amp;B  C </p>\n\n<td>$1&nbsp;m</td><b>x</b>y</html>"), "A&B\nC\n$1\u00a0mxy");
  });
});

describe("sec_filing_search", () => {
  test("filings newest first (supplementary files included), filtered by form, as indented JSON", async () => {
    const text = await results("fin", "/sec_filing_search", { ticker: " acme ", form_types: '["10-K"]' });
    const list = JSON.parse(text);
    assert.deepEqual(list.map((f: { filing_date: string }) => f.filing_date), ["2025-02-20", "2024-02-22"]);
    assert.deepEqual(list[0], { ticker: "ACME", company_name: "Acme Widgets Inc.", form: "10-K", filing_date: "2025-02-20", report_date: "2024-12-31", accession_number: "0001234567-24-000031", filing_url: URL10K });
    assert.ok(text.startsWith('[\n  {\n    "ticker": "ACME",'));
  });
  test("an unknown ticker, and no matching filings, answer NeMo Gym's error JSON", async () => {
    assert.match(await results("fin", "/sec_filing_search", { ticker: "NOPE" }), /^\{"error": "No company found for ticker 'NOPE'", "suggestion": /);
    assert.match(await results("fin", "/sec_filing_search", { ticker: "ACME", form_types: ["S-1"], end_date: "2020-01-01" }), /"No filings found for 'ACME' with form types \['S-1'\], end_date=2020-01-01"/);
  });
  test("max_filing_results caps the list", async () => {
    assert.equal(JSON.parse(await results("substring", "/sec_filing_search", { ticker: "ACME" })).length, 2);
  });
});

describe("parse_html_page and retrieve_information", () => {
  test("a page is saved under its key; saving it again warns; keys are listed", async () => {
    const cookies = await session("fin");
    assert.equal(await results("fin", "/parse_html_page", { url: URL10K, key: "k" }, cookies), "SUCCESS: The result has been saved to the data storage under the key: k.\nThe data_storage currently contains the following keys:\nk\n");
    assert.match(await results("fin", "/parse_html_page", { url: "https://news.example.com/acme", key: "k" }, cookies), /^WARNING: The key already exists/);
  });
  test("retrieve_information fills {{key}} with the document and returns the retrieval model's text", async () => {
    const cookies = await session("fin");
    await results("fin", "/parse_html_page", { url: URL10K, key: "tenk" }, cookies);
    assert.equal(await results("fin", "/retrieve_information", { prompt: "Shares? {{tenk}}" }, cookies), "48.3 million shares");
  });
  test("retrieve_information without a {{key}}, or with an unknown one, answers NeMo Gym's errors", async () => {
    const cookies = await session("fin");
    assert.match(await results("fin", "/retrieve_information", { prompt: "no key" }, cookies), /^ERROR: Your prompt must include at least one key/);
    assert.equal(await results("fin", "/retrieve_information", { prompt: "{{nope}}" }, cookies), "ERROR: The key 'nope' was not found in the data storage. Available keys are: . Use the parse_html_page tool to add keys to the data storage.");
  });
  test("without a retrieval model the tool says so", async () => {
    assert.equal(await results("substring", "/retrieve_information", { prompt: "{{x}}" }), "ERROR: Retrieval model not configured. Set retrieval_model_server in config.");
  });
});

describe("web_search, submit_final_result, unknown tools", () => {
  test("web_search from the fixture returns Tavily's results as JSON", async () => {
    assert.equal(await results("scaled", "/web_search", { search_query: "Acme Widgets revenue 2024", number_of_results: 2 }), '[{"url": "https://news.example.com/acme", "title": "Acme opens plant", "content": "Acme Widgets opened a new plant.", "score": 0.81}]');
  });
  test("web_search dates: a bad format, or a start after max_end_date's clamp, is an in-band error", async () => {
    assert.equal(await results("substring", "/web_search", { search_query: "q", end_date: "2025/01/01" }), '{"error": "Invalid end_date format: \'2025/01/01\'. Expected YYYY-MM-DD."}');
    assert.equal(await results("substring", "/web_search", { search_query: "q", start_date: "2025-05-01", end_date: "2025-01-01" }), '{"error": "start_date \'2025-05-01\' is later than end_date \'2025-01-01\'."}');
  });
  test("submit_final_result echoes the answer; an empty one is refused in-band; other tool names list the five", async () => {
    assert.equal(await results("fin", "/submit_final_result", { final_result: "42" }), '{"success": true, "result": "42"}');
    assert.equal(await results("fin", "/submit_final_result", { final_result: "" }), "ERROR: final_result is required. Please provide your answer.");
    assert.match(await results("fin", "/edgar_search", {}), /Tool 'edgar_search' does not exist\. Available tools: sec_filing_search, parse_html_page, retrieve_information, submit_final_result, web_search/);
  });
});

describe("verify", () => {
  const row = rows[0]!;
  const submitted = (answer: string) => responseWith([{ type: "function_call", call_id: "c1", name: "submit_final_result", arguments: JSON.stringify({ final_result: answer }), id: "fc1", status: "completed" } as never, assistantMessage("done")]);
  const verify = async (server: string, response: unknown) => {
    const answer = await post(server, "/verify", { ...row, response });
    assert.equal(answer.status, 200, answer.text);
    return answer.json<Record<string, any>>();
  };
  test("the hard gate: no submit_final_result call scores 0 with rating 0, without asking the judge", async () => {
    const body = await verify("fin", responseWith([assistantMessage("48,300,000")]));
    assert.deepEqual([body.reward, body.judge_rating], [0, 0]);
    assert.match(body.judge_text, /^Hard gate: submit_final_result tool call missing or empty/);
  });
  test("binary: [[2]] scores 1, [[1]] 0; scaled: [[1]] scores 0.5; the judge's text and rating are reported", async () => {
    const full = await verify("fin", submitted("exactly right"));
    assert.deepEqual([full.reward, full.judge_rating, full.judge_text, full.expected_answer], [1, 2, "Correct. [[2]]", row.expected_answer]);
    assert.equal((await verify("fin", submitted("partly right"))).reward, 0);
    assert.equal((await verify("scaled", submitted("partly right"))).reward, 0.5);
    assert.equal((await verify("scaled", submitted("wrong"))).reward, 0);
  });
  test("a judge answer without [[N]] is asked again, then scores 0 with no rating", async () => {
    const body = await verify("fin", submitted("unrated"));
    assert.deepEqual([body.reward, body.judge_rating, body.judge_text], [0, null, "I will not rate this."]);
  });
  test("without a judge, the expected answer as a case-insensitive substring of the submitted one scores 1", async () => {
    assert.equal((await verify("substring", submitted("There were 48,300,000 shares."))).reward, 1);
    assert.equal((await verify("substring", submitted("48.3 million"))).reward, 0);
  });
  test("a failed judge call is a typed failure, never a reward", async () => {
    const body = await verify("fin", submitted("no rule matches"));
    assert.equal(body._ng_failure_class, "judge_failed", JSON.stringify(body).slice(0, 300));
  });
});

describe("SEC.gov live (a loopback fake)", () => {
  const TICKERS = { "0": { cik_str: 1234567, ticker: "ACME", title: "Acme Widgets Inc." } };
  async function fakeSec(handler: (path: string, response: ServerResponse, call: number) => void) {
    const calls: { path: string; agent: string | undefined; auth: string | undefined; body: string }[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        calls.push({ path: request.url ?? "", agent: request.headers["user-agent"], auth: request.headers.authorization, body });
        handler(request.url ?? "", response, calls.length);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
  }
  const live = async (base: string, extra: Record<string, unknown> = {}) => {
    const server = await injectServer(finance, { ...PROMPTS, sec_base_url: base, search_retry_backoff_s: 0.001, judge_model_server: null, ...extra }, { instanceName: "fin" });
    after(() => server.close());
    return server;
  };
  test("every request carries the configured User-Agent; a 503 is retried", async () => {
    const fake = await fakeSec((path, res, call) => {
      if (path === "/files/company_tickers.json") return res.end(JSON.stringify(TICKERS));
      if (call === 2) return (res.statusCode = 503), res.end("busy");
      res.end(JSON.stringify({ filings: { recent: { accessionNumber: ["0001234567-25-000001"], form: ["10-K"], filingDate: ["2025-01-01"], reportDate: ["2024-12-31"], primaryDocument: ["a.htm"] } } }));
    });
    const server = await live(fake.base, { user_agent: "Tester/1.0 (t@example.com)" });
    const answer = await server.post("/sec_filing_search", { ticker: "ACME" });
    assert.equal(JSON.parse(answer.json<{ results: string }>().results)[0].filing_url, "https://www.sec.gov/Archives/edgar/data/1234567/000123456725000001/a.htm");
    assert.deepEqual(fake.calls.map((c) => c.path), ["/files/company_tickers.json", "/submissions/CIK0001234567.json", "/submissions/CIK0001234567.json"]);
    assert.ok(fake.calls.every((c) => c.agent === "Tester/1.0 (t@example.com)"));
  });
  test("live web_search posts tavily-python's body (no end_date when unset; max_end_date fills it) with the key as Bearer", async () => {
    const fake = await fakeSec((path, res) => res.end(JSON.stringify(path === "/search" ? { results: [{ url: "u", score: 0.5 }] } : TICKERS)));
    const server = await live(fake.base, { tavily_api_key: "tvly-k", search_base_url: fake.base });
    assert.equal((await server.post("/web_search", { search_query: "q", number_of_results: 30 })).status, 422);
    assert.equal((await server.post("/web_search", { search_query: "q", start_date: "2024-01-01" })).json<{ results: string }>().results, '[{"url": "u", "score": 0.5}]');
    const search = fake.calls.filter((c) => c.path === "/search");
    assert.deepEqual(JSON.parse(search[0]!.body), { query: "q", search_depth: "fast", max_results: 10, chunks_per_source: 1, start_date: "2024-01-01" });
    assert.equal(search[0]!.auth, "Bearer tvly-k");
  });
  test("with neither tavily_api_key nor a fixture, web_search says it is unavailable", async () => {
    const fake = await fakeSec((_path, res) => res.end(JSON.stringify(TICKERS)));
    const answer = await (await live(fake.base)).post("/web_search", { search_query: "x" });
    assert.equal(answer.json<{ results: string }>().results, '{"error": "web_search is not available. Use sec_filing_search, parse_html_page, and retrieve_information instead."}');
  });
  test("a document that fails on every attempt (max_retries) is a 502, not a message to the model", async () => {
    const fake = await fakeSec((path, res) => (path === "/files/company_tickers.json" ? res.end(JSON.stringify(TICKERS)) : ((res.statusCode = 500), res.end("down"))));
    const server = await live(fake.base, { max_retries: 2 });
    const seeded = await server.post("/seed_session", {});
    const answer = await server.post("/parse_html_page", { url: URL10K, key: "k" }, { cookies: seeded.cookies });
    assert.equal(answer.status, 502);
    assert.equal(fake.calls.filter((c) => c.path.startsWith("/Archives")).length, 2);
  });
  test("the server does not start without the ticker list", async () => {
    const fake = await fakeSec((_path, res) => ((res.statusCode = 404), res.end("no")));
    await assert.rejects(() => injectServer(finance, { ...PROMPTS, sec_base_url: fake.base, max_retries: 1, judge_model_server: null }, { instanceName: "fin" }), /Failed to load SEC ticker data/);
  });
});
