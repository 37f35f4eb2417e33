// `gym env test`: the project's example environments pass every check, and a deliberately broken copy fails
// the check that matters with a message naming the file:line, the tool or the field.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { runEnvironmentChecks, type CheckId, type CheckResult } from "../../src/scaffold/env-test.ts";
import { exampleValue, requiredFields, wrongTypeValue } from "../../src/scaffold/env-test/schema-values.ts";
import { toolJsonSchema } from "../../src/server/index.ts";
import { runGym } from "../../src/testing/child-process.ts";

const roots: string[] = [];
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A copy of a project environment in a fresh root (imports pointed back at this project), edited by `edit`. */
function brokenCopy(name: string, edit: (envDir: string) => void): string {
  const root = mkdtempSync(join(tmpdir(), "gym-env-test-"));
  roots.push(root);
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(root, "node_modules"));
  // As in any project that holds environments: app.ts is an ES module.
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module", private: true }));
  const envDir = join(root, "resources_servers", name);
  cpSync(join(PROJECT_ROOT, "resources_servers", name), envDir, { recursive: true });
  editFile(join(envDir, "app.ts"), (text) => text.replaceAll('"../../src/', `"${PROJECT_ROOT}/src/`));
  // The environment's other modules (beside app.ts) import the project's src/ the same way.
  for (const file of readdirSync(envDir).filter((entry) => entry.endsWith(".ts") && entry !== "app.ts")) {
    const path = join(envDir, file);
    writeFileSync(path, readFileSync(path, "utf8").replaceAll('"../../src/', `"${PROJECT_ROOT}/src/`));
  }
  edit(envDir);
  return root;
}

function editFile(path: string, change: (text: string) => string): void {
  const before = readFileSync(path, "utf8");
  const after = change(before);
  assert.notEqual(after, before, `the edit changed nothing in ${path}`);
  writeFileSync(path, after);
}

const byId = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.id, r])) as Record<CheckId, CheckResult>;
const failing = (results: CheckResult[]) => results.filter((r) => !r.ok).map((r) => r.id);

describe("the project's example environments pass every check", () => {
  for (const name of ["example_session_state_mgmt", "example_single_tool_call", "example_multi_step"]) {
    test(name, async () => {
      const results = await runEnvironmentChecks({ rootDir: PROJECT_ROOT, name });
      assert.deepEqual(results.map((r) => r.id), ["dataset", "server", "tools", "verify"]);
      assert.deepEqual(failing(results), [], JSON.stringify(results, null, 2));
    });
  }
});

test("a tool schema that drifted in the dataset fails the dataset check at its file:line and field", async () => {
  const root = brokenCopy("example_session_state_mgmt", (envDir) =>
    editFile(join(envDir, "data", "example.jsonl"), (text) => text.replace('"count": {"type": "integer"', '"count": {"type": "number"')),
  );
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_session_state_mgmt" }));
  assert.deepEqual(failing(Object.values(results)), ["dataset"]);
  assert.deepEqual(results.dataset.problems, [
    `resources_servers/example_session_state_mgmt/data/example.jsonl:1: responses_create_params.tools.0.parameters.properties.count.type: the dataset has "number", GET /tools serves "integer" (tool 'increment_counter')`,
  ]);
});

test("a tool that accepts a wrongly typed argument fails the tools check, naming the tool and the field", async () => {
  // z.coerce.string() still serves {"type": "string"} but turns 12345 into "12345" instead of answering 422.
  const root = brokenCopy("example_single_tool_call", (envDir) => editFile(join(envDir, "app.ts"), (text) => text.replace("city: z.string()", "city: z.coerce.string()")));
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_single_tool_call" }));
  assert.deepEqual(failing(Object.values(results)), ["tools"]);
  assert.equal(results.tools.problems.length, 1);
  assert.match(results.tools.summary, /^tool 'get_weather': field 'city' given a number \(12345; the schema says string\) answered 200 .*expected a 422 naming 'city'$/);
});

test("a wrong expected reward fails the verify check, naming the case's line and both rewards", async () => {
  const root = brokenCopy("example_session_state_mgmt", (envDir) =>
    editFile(join(envDir, "data", "verifier_cases.jsonl"), (text) => text.replace('"case": "zero_reward"', '"case": "full_reward"').replace('"expected_reward": 0', '"expected_reward": 1')),
  );
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_session_state_mgmt" }));
  assert.deepEqual(failing(Object.values(results)), ["verify"]);
  assert.deepEqual(results.verify.problems, ["resources_servers/example_session_state_mgmt/data/verifier_cases.jsonl:2 (full_reward): expected reward 1, /verify returned 0"]);
});

test("a missing verifier_cases.jsonl fails the verify check with what to write", async () => {
  const root = brokenCopy("example_multi_step", (envDir) => rmSync(join(envDir, "data", "verifier_cases.jsonl")));
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_multi_step" }));
  assert.deepEqual(failing(Object.values(results)), ["verify"]);
  assert.match(results.verify.summary, /verifier_cases\.jsonl is missing: write one JSON per line \{"case": "full_reward"\|"zero_reward"\|"malformed", "row": /);
  assert.match(results.verify.summary, /"expected_reward": <number>/);
});

test("a malformed verifier case is reported at its line and field", async () => {
  const root = brokenCopy("example_multi_step", (envDir) => editFile(join(envDir, "data", "verifier_cases.jsonl"), (text) => text.replace('"expected_reward": 1', '"expected_reward": "1"')));
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_multi_step" }));
  assert.deepEqual(results.verify.problems, ["resources_servers/example_multi_step/data/verifier_cases.jsonl:1: expected_reward: Input should be a valid number"]);
});

test("without its config the server check fails and the checks that need the server say they did not run", async () => {
  const root = brokenCopy("example_single_tool_call", (envDir) => rmSync(join(envDir, "configs", "example_single_tool_call.yaml")));
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_single_tool_call" }));
  assert.deepEqual(failing(Object.values(results)), ["dataset", "server", "tools", "verify"]);
  assert.match(results.server.summary, /^resources_servers\/example_single_tool_call\/configs\/example_single_tool_call\.yaml is missing/);
  assert.match(results.tools.summary, /not run: the server did not start/);
  assert.match(results.dataset.summary, /tools not compared with GET \/tools/);
});

test("data/env_test.yaml is merged over the folder's config: the server starts what it says (its entrypoint too), and a note names the file", async () => {
  const root = brokenCopy("example_single_tool_call", (envDir) =>
    writeFileSync(join(envDir, "data", "env_test.yaml"), "example_single_tool_call:\n  resources_servers:\n    example_single_tool_call:\n      entrypoint: no_such_app.py\n"),
  );
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_single_tool_call" }));
  assert.deepEqual(failing(Object.values(results)), ["dataset", "server", "tools", "verify"]);
  assert.match(results.server.summary, /^resources_servers\/example_single_tool_call\/no_such_app\.ts does not load/);
  const fine = brokenCopy("example_single_tool_call", (envDir) =>
    writeFileSync(join(envDir, "data", "env_test.yaml"), "example_single_tool_call:\n  resources_servers:\n    example_single_tool_call:\n      description: checked by gym env test\n"),
  );
  const passing = byId(await runEnvironmentChecks({ rootDir: fine, name: "example_single_tool_call" }));
  assert.deepEqual(failing(Object.values(passing)), []);
  assert.deepEqual(passing.server.notes, ["merged resources_servers/example_single_tool_call/data/env_test.yaml over resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml"]);
});

test("inputs derived from a tool's JSON Schema: the valid one passes its zod schema, each wrong type and missing field fails it", () => {
  const input = z.object({
    mode: z.enum(["fast", "slow"]),
    count: z.number().int().min(3).max(9),
    ratio: z.number().gt(0.5),
    name: z.string().min(12),
    email: z.string().email(),
    tags: z.array(z.string()).min(2),
    nested: z.object({ flag: z.boolean(), note: z.string().optional() }),
    maybe: z.string().nullable(),
    kind: z.literal("k"),
    either: z.union([z.string(), z.number()]),
    optional: z.number().optional(),
  });
  const schema = toolJsonSchema(input);
  const valid = exampleValue(schema) as Record<string, unknown>;
  assert.equal(input.safeParse(valid).success, true, JSON.stringify(valid));
  assert.equal("optional" in valid, false);
  assert.equal(valid.mode, "fast");
  for (const field of requiredFields(schema)) {
    const wrong = wrongTypeValue(field.schema, schema)!;
    assert.equal(input.safeParse({ ...valid, [field.name]: wrong.value }).success, false, `${field.name} given ${JSON.stringify(wrong.value)}`);
    const { [field.name]: _omitted, ...missing } = valid;
    assert.equal(input.safeParse(missing).success, false, `${field.name} left out`);
  }
});

test("the gym CLI prints one line per check (✓ or ✗ with the first problem) and exits 1 when one fails", async () => {
  const root = brokenCopy("example_session_state_mgmt", (envDir) =>
    editFile(join(envDir, "data", "example.jsonl"), (text) => text.replace('"count": {"type": "integer"', '"count": {"type": "number"')),
  );
  const { code, output } = await runGym(["env", "test", "example_session_state_mgmt", "--root", root]);
  assert.equal(code, 1, output);
  assert.deepEqual(output.split("\n").filter((line) => /^[✓✗] /.test(line)).map((line) => line.split(":")[0]), ["✗ dataset", "✓ server", "✓ tools", "✓ verify", "✗ 1 of 4 checks failed for resources_servers/example_session_state_mgmt"]);
  assert.match(output, /✗ dataset: resources_servers\/example_session_state_mgmt\/data\/example\.jsonl:1: responses_create_params\.tools\.0\.parameters\.properties\.count\.type: the dataset has "number", GET \/tools serves "integer" \(tool 'increment_counter'\)\n/);
});

// The kit's tool-drift rule (src/testing/tool-drift.ts): prose is the dataset's to word, as in NeMo Gym's own example rows.
test("a hand-reworded description is no drift: the dataset check passes, with a note naming the rows and the field", async () => {
  const root = brokenCopy("example_session_state_mgmt", (envDir) =>
    editFile(join(envDir, "data", "example.jsonl"), (text) => text.replaceAll('"description": "How much to add."', '"description": "How much to add (hand-copied)."')),
  );
  const results = byId(await runEnvironmentChecks({ rootDir: root, name: "example_session_state_mgmt" }));
  assert.deepEqual(failing(Object.values(results)), []);
  assert.deepEqual(results.dataset.notes, [
    `resources_servers/example_session_state_mgmt/data/example.jsonl:1 (and 4 more row(s)): responses_create_params.tools.0.parameters.properties.count.description: the dataset has "How much to add (hand-copied).", GET /tools serves "How much to add." (tool 'increment_counter') (allowed: only prose or strict differ, which the server never reads)`,
  ]);
});
