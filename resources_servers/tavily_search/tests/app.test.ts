// tavily_search over real HTTP: the tools' text from the fixture, a live Tavily faked on loopback (retries, typed
// failures, cache, key rotation), the judge (scripted_model) and regex verifies, and the per-session call metrics.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, assistantMessage, http, injectServer, readRows, responseWith, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import tavily from "../app.ts";
import { cleanText, truncateText, urlHostname } from "../text.ts";

const DIR = join(import.meta.dirname, "..");
const rows = readRows(join(DIR, "data/example.jsonl"));
const EXCLUDE = join(DIR, "data/example_exclude_domains.json");
const PROMPT = join(import.meta.dirname, "example_judge_prompt.txt");
const FIXTURE = "data/example_search_fixture.jsonl";
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const judge = { type: "responses_api_models", name: "judge_model" };
const rules = [
  { match: "Response: Answer: Paris", answer: "extracted_final_answer: Paris\nreasoning: same city\ncorrect: yes\nconfidence: 95%" },
  { match: "Response: Answer: Lyon", answer: "extracted_final_answer: Lyon\ncorrect: no" },
  { match: "Response: Answer: mumble", answer: "I cannot tell." },
];

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    tavily: [tavily, { exclude_domains_file_path: EXCLUDE, search_fixture_path: FIXTURE, judge_model_server: judge, judge_responses_create_params: { input: [], max_output_tokens: 64 }, judge_prompt_template_fpath: PROMPT }],
    regex: [tavily, { exclude_domains_file_path: EXCLUDE, search_fixture_path: FIXTURE, use_judge: false }],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});
const post = (server: string, path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url(server)}${path}`, { method: "POST", json, cookies });
const results = async (server: string, path: string, json: unknown) => {
  const answer = await post(server, path, json);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ results_string: string; total_words?: number }>();
};

describe("tools, from the fixture", () => {
  test("web_search numbers the results: title, host, URL, cleaned summary", async () => {
    assert.equal(
      (await results("regex", "/web_search", { query: "Eiffel Tower city" })).results_string,
      "Search Results\n==============\n" +
        "[1] Eiffel Tower (encyclopedia.example.org)\n    URL: https://encyclopedia.example.org/eiffel\n    Summary: The Eiffel Tower is a lattice tower on the Champ de Mars in Paris.\n\n" +
        "[2] Visiting Paris (travel.example.com)\n    URL: https://Travel.Example.com:8443/paris?x=1\n    Summary: Paris landmarks\n\nEiffel Tower, Louvre\n\n",
    );
  });

  test("web_search gives Tavily's answer alone when there is one", async () => {
    assert.equal((await results("regex", "/web_search", { query: "chemical symbol of gold" })).results_string, "Search Answer\n==============\nGold's chemical symbol is Au.\n");
  });

  test("web_search without a query, or with one over 400 characters, answers in-band without calling Tavily", async () => {
    assert.equal((await results("regex", "/web_search", {})).results_string, "Query is none");
    assert.equal((await results("regex", "/web_search", { query: "é".repeat(401) })).results_string, "Query is too long");
  });

  test("find_in_page: header, then the cleaned page numbered line by line", async () => {
    assert.equal(
      (await results("regex", "/find_in_page", { url: "https://encyclopedia.example.org/eiffel", query: "which city" })).results_string,
      'Content from: encyclopedia.example.org\nURL: https://encyclopedia.example.org/eiffel\nQuery: "which city"\n========================================\n' +
        "L0: Eiffel Tower\nL1: \nL2: The Eiffel Tower is a wrought-iron lattice tower in Paris, France.\nL3: \nL4: It was completed in 1889.\nL5:  Height: 330 m.",
    );
  });

  test("find_in_page refuses excluded domains and subdomains, and says when a page has no content", async () => {
    assert.equal((await results("regex", "/find_in_page", { url: "https://www.blocked.example/x", query: "q" })).results_string, "URL is in excluded domains");
    assert.equal((await results("regex", "/find_in_page", { url: "https://encyclopedia.example.org/missing", query: "anything" })).results_string, "No content found.");
    assert.equal((await results("regex", "/find_in_page", { url: "https://encyclopedia.example.org/x" })).results_string, "Query is none");
  });

  test("scroll_page shows a window of words with its bounds and the page's word count", async () => {
    const answer = await results("regex", "/scroll_page", { url: "https://encyclopedia.example.org/eiffel", start_index: 2, n: 4 });
    assert.equal(answer.total_words, 28);
    assert.equal(answer.results_string, "Page content from: encyclopedia.example.org\nURL: https://encyclopedia.example.org/eiffel\nShowing words [2-6] of 28\n========================================\nL0: [Jump to content]");
  });

  test("a call missing from the fixture is a 503 naming it", async () => {
    const answer = await post("regex", "/web_search", { query: "unknown" });
    assert.equal(answer.status, 503);
    assert.match(answer.text, /no entry for query/);
  });
});

describe("verify", () => {
  const row = rows[0]!;
  const verify = (server: string, text: string, cookies?: Record<string, string>) => post(server, "/verify", { ...row, response: responseWith([assistantMessage(text)]) }, cookies);

  test("the judge's 'correct: yes' scores 1.0; its text, the extracted answer and the prompt sent are reported", async () => {
    const body = (await verify("tavily", "Answer: Paris\nConfidence: 90%")).json<Record<string, any>>();
    assert.deepEqual([body.reward, body.extracted_final_answer], [1, "yes"]);
    assert.match(body.reasoning, /correct: yes/);
    assert.equal(body.judge_response_create_params.input[0].content, "Question: In which city is the Eiffel Tower?\nCorrect answer: Paris\nResponse: Answer: Paris\nConfidence: 90%\nGrade it, ending with \"correct: yes\" or \"correct: no\".\n");
    assert.deepEqual([body.ground_truth, body.question, body.num_tool_calls], ["Paris", row.question, 0]);
  });

  test("'correct: no', or no verdict at all, scores 0.0", async () => {
    assert.deepEqual(((await verify("tavily", "Answer: Lyon")).json<Record<string, any>>()).reward, 0);
    const silent = (await verify("tavily", "Answer: mumble")).json<Record<string, any>>();
    assert.deepEqual([silent.reward, silent.extracted_final_answer], [0, ""]);
  });

  test("a failed judge call is the judge_failed row, never a reward", async () => {
    const body = (await verify("tavily", "no rule matches this")).json<Record<string, any>>();
    assert.equal(body._ng_failure_class, "judge_failed");
  });

  test("use_judge false: the last 'Answer: … Confidence:' answer, compared exactly", async () => {
    const body = (await verify("regex", "Answer: Lyon\nConfidence: 1%\nAnswer:  Paris \nConfidence: 9%")).json<Record<string, any>>();
    assert.deepEqual([body.reward, body.extracted_final_answer, body.reasoning, body.judge_response], [1, "Paris", "Regex match for 'Paris': found", null]);
    assert.equal((await verify("regex", "Answer: Paris")).json<Record<string, any>>().reward, 0);
  });

  test("verify reports the session's Tavily calls", async () => {
    const first = await post("regex", "/web_search", { query: "Eiffel Tower city" });
    const cookies = first.cookies;
    await post("regex", "/scroll_page", { url: "https://encyclopedia.example.org/eiffel" }, cookies);
    const body = (await verify("regex", "Answer: Paris\nConfidence: 9%", cookies)).json<Record<string, any>>();
    assert.deepEqual(body.metrics.async_tavily_calls.map((c: { function: string; status: string }) => [c.function, c.status]), [["search", "success"], ["extract", "success"]]);
    assert.ok(body.metrics.async_tavily_calls.every((c: { time_taken: number }) => c.time_taken >= 0));
  });

  test("verify without ground_truth is a 422 naming it", async () => {
    const { ground_truth: _g, ...rest } = row;
    const answer = await post("regex", "/verify", { ...rest, response: responseWith([assistantMessage("x")]) });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /ground_truth/);
  });
});

describe("live Tavily (a loopback fake)", () => {
  async function fakeTavily(script: (request: IncomingMessage, body: any, response: ServerResponse, call: number) => void) {
    const calls: { auth: string | undefined; path: string; body: any }[] = [];
    const server = createServer((request, response) => {
      let text = "";
      request.on("data", (chunk) => (text += chunk));
      request.on("end", () => {
        const body = JSON.parse(text || "{}");
        calls.push({ auth: request.headers.authorization, path: request.url ?? "", body });
        script(request, body, response, calls.length);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
  }
  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(JSON.stringify(body));
  };
  const live = async (base: string, key: unknown = "tvly-1") => {
    const server = await injectServer(tavily, { tavily_api_key: key, exclude_domains_file_path: EXCLUDE, use_judge: false, search_base_url: base, search_max_retries: 2, search_retry_backoff_s: 0.001 }, { instanceName: "tavily" });
    after(() => server.close());
    return server;
  };
  const page = { results: [{ url: "u", raw_content: "one two three" }] };

  test("search posts NeMo Gym's parameters with the key as a Bearer token; a 429 is retried", async () => {
    const fake = await fakeTavily((_req, _body, res, call) => (call === 1 ? send(res, 429, {}, { "retry-after": "0" }) : send(res, 200, { results: [] })));
    const server = await live(fake.base);
    const answer = await server.post("/web_search", { query: "q" });
    assert.equal(answer.json<{ results_string: string }>().results_string, "Search Results\n==============\n");
    assert.equal(fake.calls.length, 2);
    assert.deepEqual(fake.calls[1], { auth: "Bearer tvly-1", path: "/search", body: { query: "q", search_depth: "advanced", max_results: 10, exclude_domains: ["blocked.example"] } });
  });

  test("5xx on every attempt is a 502 typed failure", async () => {
    const fake = await fakeTavily((_req, _body, res) => send(res, 502, { detail: "gateway" }));
    const answer = await (await live(fake.base)).post("/find_in_page", { url: "https://a.example/", query: "q" });
    assert.equal(answer.status, 502);
    assert.match(answer.text, /tavily failed after 3 attempt/);
    assert.equal(fake.calls.length, 3);
  });

  test("scroll_page reads a page once: the second window comes from the cache", async () => {
    const fake = await fakeTavily((_req, _body, res) => send(res, 200, page));
    const server = await live(fake.base);
    await server.post("/scroll_page", { url: "https://a.example/p", n: 1 });
    const second = await server.post("/scroll_page", { url: "https://a.example/p", start_index: 1, n: 1 });
    assert.match(second.json<{ results_string: string }>().results_string, /Showing words \[1-2\] of 3\n=+\nL0: two$/);
    assert.deepEqual(fake.calls.map((c) => [c.path, c.body]), [["/extract", { urls: "https://a.example/p" }]]);
  });

  test("a list of keys is used in turn", async () => {
    const fake = await fakeTavily((_req, _body, res) => send(res, 200, { results: [] }));
    const server = await live(fake.base, ["k-a", "k-b"]);
    await server.post("/web_search", { query: "1" });
    await server.post("/web_search", { query: "2" });
    await server.post("/web_search", { query: "3" });
    assert.deepEqual(fake.calls.map((c) => c.auth), ["Bearer k-a", "Bearer k-b", "Bearer k-a"]);
  });

  test("no tavily_api_key and no fixture fails at start, naming the key", async () => {
    await assert.rejects(injectServer(tavily, { exclude_domains_file_path: EXCLUDE, use_judge: false }), /tavily_api_key is not set/);
  });

  test("use_judge without a judge server fails at start", async () => {
    await assert.rejects(injectServer(tavily, { exclude_domains_file_path: EXCLUDE, search_fixture_path: FIXTURE }), /judge_model_server/);
  });
});

describe("text shaping", () => {
  test("cleanText (checked against NeMo Gym's Python) drops wiki chrome (a chrome line ending in \\r too), language links, anchors, zero-width characters; maps 【】; collapses blank lines", () => {
    assert.equal(cleanText("[Read more]\r\nx [edit]\n* [(Top)](#top)\n[Deutsch](https://de.wikipedia.org/wiki/X)\u3010a\u3011\u200b  \n\n\n\nend\n"), "x\n\n[a]\n\nend");
  });
  test("truncateText cuts at the last newline within the limit, counting code points", () => {
    assert.deepEqual(truncateText("ab\ncd\nef", 6), ["ab\ncd", true]);
    assert.deepEqual(truncateText("😀😀😀", 3), ["😀😀😀", false]);
    assert.deepEqual(truncateText("abcdef", 4), ["abcd", true]);
  });
  test("urlHostname is urlparse's hostname", () => {
    assert.equal(urlHostname("https://user@Ex.COM:80/p"), "ex.com");
    assert.equal(urlHostname("https://[::1]:8/"), "::1");
    assert.equal(urlHostname("example.com/x"), null);
  });
});

test("the example data has 5 valid rows offering exactly the served tools", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, tavily.toolDefinitions);
});
