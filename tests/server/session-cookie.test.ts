import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpSessionTokenCodec, parseCookieHeader, sessionCookieCodec, SESSION_MAX_AGE_S } from "../../src/server/session-cookie.ts";

const NAME = "StatefulCounterResourcesServer___example_session_state_mgmt_resources_server";
// NeMo Gym's signing (the cookie name is the secret), given explicitly: what byte compatibility with Starlette is pinned under.
const codec = sessionCookieCodec(NAME, NAME);

test("a cookie is byte-identical to the one Starlette/itsdangerous mints for the same session and time", () => {
  const value = codec.encode("3f2b9a4e-1c7d-4e8a-9b6f-0a1b2c3d4e5f", 1785000000);
  assert.equal(value, "eyJzZXNzaW9uX2lkIjogIjNmMmI5YTRlLTFjN2QtNGU4YS05YjZmLTBhMWIyYzNkNGU1ZiJ9.amTwQA.lU6OlHPtC0S-WsTrYaJX5xxJfqo");
  assert.equal(codec.decode(value, 1785000000 + 60), "3f2b9a4e-1c7d-4e8a-9b6f-0a1b2c3d4e5f");
});

test("a tampered payload or signature, or another server's secret, decodes to no session", () => {
  const value = codec.encode("abc", 1785000000);
  const [payload, ts, sig] = value.split(".");
  const otherPayload = Buffer.from('{"session_id": "xyz"}').toString("base64");
  assert.equal(codec.decode(`${otherPayload}.${ts}.${sig}`, 1785000000), undefined);
  assert.equal(codec.decode(`${payload}.${ts}.${sig!.slice(0, -2)}AA`, 1785000000), undefined);
  assert.equal(sessionCookieCodec("Other___x", "Other___x").decode(value, 1785000000), undefined);
  assert.equal(codec.decode("garbage", 1785000000), undefined);
  assert.equal(codec.decode("", 1785000000), undefined);
});

test("a cookie older than 14 days is expired", () => {
  const value = codec.encode("abc", 1785000000);
  assert.equal(codec.decode(value, 1785000000 + SESSION_MAX_AGE_S), "abc");
  assert.equal(codec.decode(value, 1785000000 + SESSION_MAX_AGE_S + 1), undefined);
});

test("Set-Cookie carries Starlette's attributes", () => {
  assert.match(codec.setCookieHeader("abc"), new RegExp(`^${NAME}=[^;]+; path=/; Max-Age=1209600; httponly; samesite=lax$`));
});

test("cookie headers are parsed like Starlette: quoted values with octal escapes are unquoted", () => {
  assert.deepEqual(parseCookieHeader('a=1; b="x\\075y"; c = spaced ; d="plain"'), { a: "1", b: "x=y", c: "spaced", d: "plain" });
  assert.deepEqual(parseCookieHeader(undefined), {});
});

test("the MCP session token is itsdangerous' URLSafeSerializer(secret, salt='nemo-gym-mcp-session-token'), byte for byte; it reads back, a changed one does not", () => {
  const codec = mcpSessionTokenCodec("graph-secret");
  // Python: URLSafeSerializer("graph-secret", salt="nemo-gym-mcp-session-token").dumps({"sid": …, "tools": None})
  const token = codec.dumps({ sid: "6f1d7c2e-1b2a-4c3d-9e8f-0a1b2c3d4e5f", tools: null });
  assert.equal(token, "eyJzaWQiOiI2ZjFkN2MyZS0xYjJhLTRjM2QtOWU4Zi0wYTFiMmMzZDRlNWYiLCJ0b29scyI6bnVsbH0.xFrzQIfAy-aXCsbBrofEpJk6H6w");
  assert.deepEqual(codec.loads(token), { sid: "6f1d7c2e-1b2a-4c3d-9e8f-0a1b2c3d4e5f", tools: null });
  // A long allow-list is zlib-compressed (a leading "."); Python's own compressed token reads here too.
  const python = ".eJyrVirOTFGyUio2VNJRKsnPzylWsopWSk8tiS9PTSzJSC0CClODF1sLAID-JQA.qju72RlAufiE2qaMdpYZeBH2X1E";
  assert.deepEqual(codec.loads(python), { sid: "s1", tools: Array(6).fill("get_weather") });
  assert.deepEqual(codec.loads(codec.dumps({ sid: "s1", tools: Array(6).fill("get_weather") })), { sid: "s1", tools: Array(6).fill("get_weather") });
  assert.equal(codec.loads(token.replace(".xFrz", ".yFrz")), undefined, "another signature");
  assert.equal(codec.loads(token.replace("eyJzaWQiOiI2", "eyJzaWQiOiI3")), undefined, "another payload");
  assert.equal(mcpSessionTokenCodec("another-secret").loads(token), undefined);
});
