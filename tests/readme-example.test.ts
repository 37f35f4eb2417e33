// The README's "Writing an environment" example is real code: it type-checks under the project's compiler options,
// unchanged, and the server it declares runs.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { buildServer, type ServerDefinition } from "../src/server/index.ts";

const ROOT = join(import.meta.dirname, "..");
// Beside the real app, so the example's `../../src/` import resolves; dot-named, so neither tsc's project nor
// the test runner picks it up, and per process, so concurrent runs do not share it.
const EXAMPLE_DIR = join(ROOT, "resources_servers/example_session_state_mgmt");
const examplePath = join(EXAMPLE_DIR, `.readme-example-${process.pid}.ts`);
const brokenPath = join(EXAMPLE_DIR, `.readme-example-broken-${process.pid}.ts`);
const mistypedPath = join(EXAMPLE_DIR, `.readme-example-mistyped-${process.pid}.ts`);
after(() => {
  for (const path of [examplePath, brokenPath, mistypedPath]) rmSync(path, { force: true });
});

/** The first ```ts block of README.md's "## Writing an environment" section. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((part) => part.startsWith("Writing an environment\n"));
  assert.ok(section, 'README.md has a "## Writing an environment" section');
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(section);
  assert.ok(block, "the section has a ```ts block");
  return block[1]!;
}

/** Diagnostics of each file, type-checked together with the project's tsconfig options. */
function typeCheck(files: string[]): Map<string, string[]> {
  const configPath = join(ROOT, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  assert.equal(config.error, undefined);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, undefined, configPath);
  const program = ts.createProgram(files, options);
  return new Map(
    files.map((file) => [
      file,
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
    ]),
  );
}

const example = readmeExample();

/** The example with one text replaced (which must occur in it). */
function variant(from: string, to: string): string {
  assert.ok(example.includes(from), `the example contains ${from}`);
  return example.replace(from, to);
}

test("the README example type-checks unchanged; the check refuses broken copies of it", () => {
  writeFileSync(examplePath, example);
  // Without `?.`, verify's possibly-undefined state is refused: the state type is inferred from `state`.
  writeFileSync(brokenPath, variant("counter?.count === expected_count", "counter.count === expected_count"));
  // A tool whose annotated state is not the spec's is refused.
  writeFileSync(mistypedPath, variant("run: (counter) => ({ count: counter.count })", "run: (counter: { name: string }) => ({ count: counter.name })"));
  const diagnostics = typeCheck([examplePath, brokenPath, mistypedPath]);
  assert.deepEqual(diagnostics.get(examplePath), []);
  assert.ok(
    diagnostics.get(brokenPath)!.some((message) => /'counter' is possibly 'undefined'/.test(message)),
    `verify's state is State | undefined: ${JSON.stringify(diagnostics.get(brokenPath))}`,
  );
  assert.ok(
    diagnostics.get(mistypedPath)!.some((message) => /\{ count: number; \}/.test(message) && /name/.test(message)),
    `a mistyped tool state is refused: ${JSON.stringify(diagnostics.get(mistypedPath))}`,
  );
});

test("the README example runs: seeded, incremented, read and verified", async () => {
  writeFileSync(examplePath, example);
  const definition = (await import(pathToFileURL(examplePath).href)).default as ServerDefinition;
  const globalConfig = { counter: { resources_servers: { example: { entrypoint: "app.ts", domain: "other" } } } };
  const { app } = await buildServer(definition, { instanceName: "counter", globalConfig });
  try {
    const seeded = await app.inject({ method: "POST", url: "/seed_session", payload: { initial_count: 2 } });
    const cookie = String(seeded.headers["set-cookie"]).split(";")[0]!;
    const post = (url: string, payload: unknown) => app.inject({ method: "POST", url, payload: payload as object, headers: { cookie } });
    assert.deepEqual((await post("/increment_counter", { count: 3 })).json(), { success: true });
    assert.deepEqual((await post("/get_counter_value", {})).json(), { count: 5 });
    const response = { id: "r", created_at: 0, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
    const verify = await post("/verify", { responses_create_params: { input: "count" }, response, expected_count: 5 });
    assert.equal(verify.json<{ reward: number }>().reward, 1);
    const tools = (await app.inject({ method: "GET", url: "/tools" })).json<{ name: string }[]>();
    assert.deepEqual(tools.map((t) => t.name), ["increment_counter", "get_counter_value"]);
  } finally {
    await app.close();
  }
});
