// What may reach a log (spec §1.6 NEMO_GYM_VERBOSE, §2.3 step 7; reference test_verbose_logging.py, test 84).
import { test } from "node:test";
import assert from "node:assert/strict";
import { REDACTED, redactForLog, redactText } from "../../src/gateway/redact.ts";

test("verbose_logging_redacts_credentials_without_removing_request_content", () => {
  const payload = {
    model_endpoint: {
      api_key: "secret-key",
      headers: { Authorization: "Bearer secret", "x-request-id": "request-one" },
    },
    max_tokens: 4096,
    messages: [{ role: "user", content: "fix the bug" }],
  };
  const original = structuredClone(payload);

  assert.deepEqual(redactForLog(payload), {
    model_endpoint: {
      api_key: REDACTED,
      headers: { Authorization: REDACTED, "x-request-id": "request-one" },
    },
    max_tokens: 4096,
    messages: [{ role: "user", content: "fix the bug" }],
  });
  assert.deepEqual(payload, original);
});

test("sensitive keys match case-insensitively, with dashes, and by suffix", () => {
  const redacted = redactForLog({
    session: { session_id: "s", group_id: "g" },
    PASSWORD: "p",
    "Refresh-Token": "r",
    access_token: "a",
    secret: "x",
    openai_api_key: "k",
    "X-Api-Key": "k2",
    db_password: "p2",
    client_secret: "c",
    api_key_prefix: "Bearer ",
    list: [{ Authorization: "Bearer t", keep: 1 }],
    secretary: "kept",
    password_hint_shown: false,
  }) as Record<string, unknown>;
  assert.deepEqual(redacted, {
    session: { session_id: REDACTED, group_id: "g" },
    PASSWORD: REDACTED,
    "Refresh-Token": REDACTED,
    access_token: REDACTED,
    secret: REDACTED,
    openai_api_key: REDACTED,
    "X-Api-Key": REDACTED,
    db_password: REDACTED,
    client_secret: REDACTED,
    api_key_prefix: REDACTED,
    list: [{ Authorization: REDACTED, keep: 1 }],
    secretary: "kept",
    password_hint_shown: false,
  });
});

test("a redacted copy survives cycles and values JSON cannot hold", () => {
  const node: Record<string, unknown> = { big: 10n, when: new Date(0) };
  node.self = node;
  assert.deepEqual(redactForLog(node), { big: "10", when: "1970-01-01T00:00:00.000Z", self: "[Circular]" });
});

test("redactText removes every occurrence of each secret, longest first, and skips empty secrets", () => {
  const text = "token=abcdef and again abcdef; short abc";
  assert.equal(redactText(text, ["abc", "abcdef", ""]), `token=${REDACTED} and again ${REDACTED}; short ${REDACTED}`);
  assert.equal(redactText("nothing to hide", [""]), "nothing to hide");
});

test("redactText truncates to at most maxChars after redacting", () => {
  const long = `${"x".repeat(50)}SECRET${"y".repeat(50)}`;
  const cut = redactText(long, ["SECRET"], 40);
  assert.ok(cut.length <= 40);
  assert.doesNotMatch(cut, /SECRET/);
  assert.match(cut, /truncated/);
  assert.equal(redactText("short", [], 40), "short");
  assert.equal(redactText("x".repeat(5000), []).length, 4000);
});
