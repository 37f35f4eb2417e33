/**
 * Parses NeMo Gym's own example data (input rows and reference rollouts,
 * copied to shared/nemo-gym-data) with the protocol schemas.
 *
 * The reference rollouts were recorded by several Gym/openai-python versions,
 * so two things in them are not what the pinned pydantic models produce:
 * - older rows have `parallel_tool_calls: null` / `tool_choice: null` in
 *   `responses_create_params`, which the pinned (non-nullable) model rejects;
 * - older envelopes lack `conversation` and list `prompt_cache_key` /
 *   `safety_identifier` as trailing extras, while openai-python 2.7.2 declares
 *   them in the middle. Those envelopes are compared against their canonical
 *   re-ordering; the newer ones must round-trip byte for byte.
 * `aviary` rollouts carry a list of per-step item lists in `response.output`,
 * an agent-specific format that is not a NeMoGymResponse at all.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ResponseCreateParamsSchema, ResponseSchema } from "../../src/protocol/index.ts";

const DATA_DIR = fileURLToPath(new URL("../../../shared/nemo-gym-data/", import.meta.url));
const skip = existsSync(DATA_DIR) ? false : `reference data not found at ${DATA_DIR} (shared/ is not beside the project)`;

/** openai-python 2.7.2 `Response` field order. */
const DECLARED = [
  "id", "created_at", "error", "incomplete_details", "instructions", "metadata", "model", "object", "output",
  "parallel_tool_calls", "temperature", "tool_choice", "tools", "top_p", "background", "conversation",
  "max_output_tokens", "max_tool_calls", "previous_response_id", "prompt", "prompt_cache_key", "reasoning",
  "safety_identifier", "service_tier", "status", "text", "top_logprobs", "truncation", "usage", "user",
];

interface Row {
  env: string;
  file: string;
  line: number;
  data: Record<string, unknown>;
}

function loadRows(): Row[] {
  const rows: Row[] = [];
  for (const env of readdirSync(DATA_DIR).sort()) {
    const dir = `${DATA_DIR}${env}/data`;
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
      readFileSync(`${dir}/${file}`, "utf8")
        .split("\n")
        .forEach((text, line) => {
          if (text.trim()) rows.push({ env, file, line, data: JSON.parse(text) });
        });
    }
  }
  return rows;
}

const rows = skip ? [] : loadRows();
const isRollout = (r: Row) => r.file === "example_rollouts.jsonl";
const isExampleEnv = (r: Row) => r.env.startsWith("example_");
const where = (r: Row, key: string) => `${r.env}/data/${r.file}:${r.line + 1} ${key}`;
const compact = (value: unknown) => JSON.stringify(value);

type Issues = { code: string; path: PropertyKey[]; input?: unknown }[];

/** `parallel_tool_calls` / `tool_choice` stored as null by older Gym versions. */
function onlyLegacyNulls(stored: Record<string, unknown>, issues: Issues): boolean {
  return issues.every((i) => {
    const key = String(i.path[0]);
    return i.path.length === 1 && ["parallel_tool_calls", "tool_choice"].includes(key) && stored[key] === null;
  });
}

/** Replace the legacy nulls by what the pinned model dumps when the keys are absent. */
function withPinnedDefaults(stored: Record<string, unknown>) {
  const absent = { ...stored };
  const expected = { ...stored };
  if (stored.parallel_tool_calls === null) {
    delete absent.parallel_tool_calls;
    expected.parallel_tool_calls = true;
  }
  if (stored.tool_choice === null) {
    delete absent.tool_choice;
    expected.tool_choice = "auto";
  }
  return { absent, expected };
}

/** Declared fields in pinned order (absent ones as null), then extras in stored order. */
function canonicalEnvelope(stored: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const key of DECLARED) out[key] = key in stored ? stored[key] : null;
  for (const key of Object.keys(stored)) if (!DECLARED.includes(key)) out[key] = stored[key];
  return out;
}

const hasPinnedEnvelopeOrder = (stored: Record<string, unknown>) =>
  compact(Object.keys(stored).slice(0, DECLARED.length)) === compact(DECLARED);

test("reference data is present", { skip }, () => {
  assert.ok(rows.some(isRollout), "no example_rollouts.jsonl found");
  assert.ok(rows.some((r) => r.env === "example_single_tool_call"), "example_single_tool_call missing");
});

test("every input row's responses_create_params parses (all environments)", { skip }, () => {
  let parsed = 0;
  for (const row of rows.filter((r) => !isRollout(r) && "responses_create_params" in r.data)) {
    const result = ResponseCreateParamsSchema.safeParse(row.data.responses_create_params);
    assert.ok(result.success, `${where(row, "responses_create_params")}: ${compact(result.error?.issues)}`);
    parsed++;
  }
  assert.ok(parsed >= 15, `only ${parsed} input rows found`);
});

test("example_* rollouts: responses_create_params round-trips key for key", { skip }, () => {
  for (const row of rows.filter((r) => isRollout(r) && isExampleEnv(r))) {
    const stored = row.data.responses_create_params as Record<string, unknown>;
    const result = ResponseCreateParamsSchema.safeParse(stored);
    if (result.success) {
      assert.equal(compact(result.data), compact(stored), where(row, "responses_create_params"));
      continue;
    }
    assert.ok(onlyLegacyNulls(stored, result.error.issues), `${where(row, "responses_create_params")}: ${compact(result.error.issues)}`);
    const { absent, expected } = withPinnedDefaults(stored);
    assert.equal(compact(ResponseCreateParamsSchema.parse(absent)), compact(expected), where(row, "responses_create_params"));
  }
});

test("example_* rollouts: response parses; items and usage round-trip key for key", { skip }, () => {
  const examples = rows.filter((r) => isRollout(r) && isExampleEnv(r));
  assert.equal(examples.length, 15);
  for (const row of examples) {
    const stored = row.data.response as Record<string, unknown>;
    const result = ResponseSchema.safeParse(stored);
    assert.ok(result.success, `${where(row, "response")}: ${compact(result.error?.issues)}`);
    const parsed = result.data;
    assert.equal(compact(parsed.output), compact(stored.output), where(row, "response.output"));
    assert.equal(compact(parsed.usage), compact(stored.usage), where(row, "response.usage"));
    assert.equal(compact(parsed), compact(canonicalEnvelope(stored)), where(row, "response"));
  }
});

test("all environments' rollouts parse, except the documented legacy/agent-specific rows", { skip }, (t) => {
  const legacy = new Set<string>();
  let exact = 0;
  let canonical = 0;
  for (const row of rows.filter(isRollout)) {
    const params = row.data.responses_create_params as Record<string, unknown> | undefined;
    if (params) {
      const result = ResponseCreateParamsSchema.safeParse(params);
      if (!result.success) {
        assert.ok(onlyLegacyNulls(params, result.error.issues), `${where(row, "responses_create_params")}: ${compact(result.error.issues)}`);
        legacy.add(`${row.env} (responses_create_params: legacy null parallel_tool_calls/tool_choice)`);
      }
    }

    const stored = row.data.response as Record<string, unknown> | undefined;
    if (!stored) continue;
    const result = ResponseSchema.safeParse(stored);
    if (!result.success) {
      const perStepLists = (stored.output as unknown[]).every(Array.isArray);
      assert.ok(row.env === "aviary" && perStepLists, `${where(row, "response")}: ${compact(result.error.issues.slice(0, 3))}`);
      legacy.add(`${row.env} (response.output is a list of per-step lists)`);
      continue;
    }
    if (hasPinnedEnvelopeOrder(stored)) {
      assert.equal(compact(result.data), compact(stored), where(row, "response"));
      exact++;
    } else {
      assert.equal(compact(result.data), compact(canonicalEnvelope(stored)), where(row, "response"));
      canonical++;
    }
  }
  t.diagnostic(`responses byte-identical: ${exact}; older envelope order (compared canonically): ${canonical}`);
  for (const entry of [...legacy].sort()) t.diagnostic(`not parseable as pinned: ${entry}`);
  assert.ok(exact >= 50, `expected most modern rollouts to round-trip exactly, got ${exact}`);
});
