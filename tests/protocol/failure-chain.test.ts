// Unwrapping a failure that crossed servers, for display: innermost cause first, then each server, no escaped quotes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { failureChain, formatFailureChain } from "../../src/protocol/failure-chain.ts";
import { pythonBytesRepr } from "../../src/python/repr.ts";

const UPSTREAM = "upstream http://127.0.0.1:9/v1/responses could not be reached: connect ECONNREFUSED 127.0.0.1:9";
const excerpt = (text: string) => JSON.stringify(text);
/** What simple_agent's /run answers when its model server cannot reach the upstream (the body built as the servers build it). */
const modelAnswer = JSON.stringify({ detail: UPSTREAM });
const selfCallAnswer = JSON.stringify(`environment_unavailable: policy_model/v1/responses answered HTTP 502: ${excerpt(modelAnswer)}`);
const runAnswer = JSON.stringify(`environment_unavailable: my_agent/v1/responses answered it reported environment_unavailable: ${excerpt(selfCallAnswer)}`);

test("an agent's infrastructure failure three levels deep: the upstream's words first, then each server", () => {
  assert.deepEqual(failureChain(runAnswer, "my_agent"), [
    { server: "policy_model", message: UPSTREAM },
    { server: "my_agent", message: "policy_model/v1/responses answered HTTP 502 (environment_unavailable)" },
    { server: "my_agent", message: "my_agent/v1/responses answered it reported environment_unavailable (environment_unavailable)" },
  ]);
  const lines = formatFailureChain(failureChain(runAnswer, "my_agent"));
  assert.equal(lines[0], `policy_model: ${UPSTREAM}`);
  for (const line of lines) assert.doesNotMatch(line, /\\"|\\'/);
});

test("NeMo Gym's 'Hit an exception … calling an inner server: b'…'' around a FastAPI detail", () => {
  const inner = JSON.stringify({ detail: "Row has no expected_answer" });
  const body = JSON.stringify(`Hit an exception in SimpleAgent___my_agent calling an inner server: ${pythonBytesRepr(inner)}`);
  assert.deepEqual(failureChain(body), [
    { server: undefined, message: "Row has no expected_answer" },
    { server: "my_agent", message: "an inner server answered with an error" },
  ]);
  // Twice wrapped, with quotes and a non-ASCII character in the innermost words.
  const twice = JSON.stringify(`Hit an exception in SimpleAgent___outer calling an inner server: ${pythonBytesRepr(body)}`);
  const chain = failureChain(twice);
  assert.equal(chain[0]!.message, "Row has no expected_answer");
  assert.deepEqual(chain.map((link) => link.server), [undefined, "my_agent", "outer"]);
  const quoted = JSON.stringify(`Hit an exception in X___a calling an inner server: ${pythonBytesRepr(JSON.stringify({ detail: `it's "bad" – é` }))}`);
  assert.equal(failureChain(quoted)[0]!.message, `it's "bad" – é`);
});

test("an excerpt cut at 300 characters still yields the words it kept, unescaped", () => {
  const long = JSON.stringify({ detail: `${"x".repeat(280)} the end is cut` });
  const cut = `environment_unavailable: policy_model/v1/responses answered HTTP 502: ${JSON.stringify(long.slice(0, 300))}…`;
  const chain = failureChain(JSON.stringify(cut), "a");
  assert.equal(chain.length, 2);
  assert.match(chain[0]!.message, /^x{280} the end/);
  assert.equal(chain[0]!.server, "policy_model");
});

test("plain texts stay as they are; a 422 detail list reads as loc: msg", () => {
  assert.deepEqual(failureChain("connect ECONNREFUSED 127.0.0.1:1"), [{ server: undefined, message: "connect ECONNREFUSED 127.0.0.1:1" }]);
  assert.deepEqual(failureChain(JSON.stringify({ detail: [{ loc: ["body", "input"], msg: "Field required" }] }), "m"), [{ server: "m", message: "body.input: Field required" }]);
  assert.deepEqual(failureChain('{"error": {"message": "Invalid API key"}}', "m"), [{ server: "m", message: "Invalid API key" }]);
  assert.deepEqual(failureChain(""), [{ server: undefined, message: "(an empty answer)" }]);
});
