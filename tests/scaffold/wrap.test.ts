// `gym env wrap`: tool schemas derived from TypeScript signatures and JSDoc, clear errors for what cannot be
// wrapped, and the Wordle domain module wrapped into a fresh root — its generated test passing as generated,
// the environment over HTTP keeping sessions apart and scoring with the module's own score(), and rollouts
// collected through simple_agent + scripted_model.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { z } from "zod";
import { Command } from "commander";
import { registerEnvWrap } from "../../src/cli/env-wrap.ts";
import { buildProgram, runProgram } from "../../src/cli/main.ts";
import { loadAllCommands } from "../../src/cli/commands.ts";
import { loadGlobalConfig, PROJECT_ROOT } from "../../src/config/index.ts";
import { collectRollouts } from "../../src/rollouts/collect.ts";
import { ScaffoldError } from "../../src/scaffold/common.ts";
import { analyzeDomainModule, type DomainModule } from "../../src/scaffold/wrap/analyze.ts";
import { appSource } from "../../src/scaffold/wrap/app-source.ts";
import { wrapDomainModule, type WrapResult } from "../../src/scaffold/wrap/generate.ts";
import { objectSource } from "../../src/scaffold/wrap/zod-source.ts";
import { toolJsonSchema, type ResourcesServerDefinition } from "../../src/server/index.ts";
import { startInProcess, type InProcessGraph } from "../../src/testing/in-process.ts";
import { readRows } from "../../src/testing/rows.ts";
import { http, startServers } from "../../src/testing/servers.ts";

const WORDLE = join(import.meta.dirname, "fixtures/wordle/wordle.ts");
const scratchDirs: string[] = [];
/** Generated TypeScript files, type-checked together by the last test (one program: it is slow to build). */
const generatedFiles: string[] = [];
after(() => scratchDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** A domain module written to a fresh folder (an ES-module package, as a user's project would be). */
function moduleFile(source: string, fileName = "domain.ts"): string {
  const dir = scratch("gym-wrap-module-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(dir, fileName), source);
  return join(dir, fileName);
}

const analyzeSource = (source: string) => analyzeDomainModule(moduleFile(source));

/** The JSON schema a tool would serve: the generated zod source, evaluated, through the project's converter. */
function servedSchema(domain: DomainModule, toolName: string): Record<string, any> {
  const tool = domain.tools.find((t) => t.toolName === toolName);
  assert.ok(tool, `no tool ${toolName} among ${domain.tools.map((t) => t.toolName)}`);
  const schema = new Function("z", `return ${objectSource(tool.parameters.fields)};`)(z) as z.ZodType;
  return toolJsonSchema(schema);
}

const SCORE = `\n  /** The reward. */\n  score(): number { return 0; }\n`;

/** A fresh root (with this project's node_modules, so `node --import tsx` resolves there too). */
function freshRoot(): string {
  const root = scratch("gym-wrap-root-");
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(root, "node_modules"), "dir");
  return root;
}

/** Type errors of generated files under the project's strict settings (the test runner only strips types). */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2023,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [join(PROJECT_ROOT, "node_modules/@types")],
  });
  return files
    .flatMap((file) => [...program.getSyntacticDiagnostics(program.getSourceFile(file)), ...program.getSemanticDiagnostics(program.getSourceFile(file))])
    .map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("tool schemas from TypeScript signatures and JSDoc", () => {
  let kitchen: DomainModule;
  before(() => {
    kitchen = analyzeSource(`
      type Integer = number;
      /** Where to put something. */
      interface Place {
        /** Row, from 0. */
        row: Integer;
        column: number;
        label?: string | null;
        rank?: Integer | null;
      }
      /** A board game: tests every supported parameter type. */
      export class Board {
        constructor(size: number, name?: string) {}
        /**
         * Put a piece somewhere.
         * @param piece - Which piece.
         * @param at Where it goes.
         * @param tags Free labels.
         * @param flip Whether to flip it.
         * @returns the new board.
         */
        place(piece: "king" | "queen" | "pawn", at: Place, tags: readonly string[], flip = false): { ok: boolean } { return { ok: true }; }
        /** Roll dice. @param faces How many faces. @param times How many rolls. */
        roll(faces: 4 | 6 | 20, times?: Integer, weights?: Array<number>): number[] { return []; }
        /** Options in one object: its properties are the arguments. */
        configure(options: {
          strict: boolean;
          /** Seconds. */
          limit?: number;
          mode: "fast";
        }): void {}
        sureThing(value: true): void {}
        private secret(): void {}
        protected guarded(): void {}
        #hidden(): void {}
        _underscored(): void {}
        /** @internal */
        debugDump(): string { return ""; }
        get size(): number { return 0; }
        ${SCORE}
      }
    `);
  });

  test("string, number and boolean parameters become their JSON types, all required", () => {
    const roll = servedSchema(kitchen, "place");
    assert.deepEqual(roll.required, ["piece", "at", "tags"]);
    assert.deepEqual(roll.properties.tags, { type: "array", items: { type: "string" }, description: "Free labels." });
    assert.deepEqual(roll.properties.flip, { type: "boolean", description: "Whether to flip it." });
    assert.equal(roll.additionalProperties, false);
  });

  test("optional and defaulted parameters are not required", () => {
    const roll = servedSchema(kitchen, "roll");
    assert.deepEqual(roll.required, ["faces"]);
    assert.deepEqual(Object.keys(roll.properties), ["faces", "times", "weights"]);
    assert.deepEqual(roll.properties.weights, { type: "array", items: { type: "number" } });
  });

  test("literal unions become enums (strings and numbers); a lone literal a const", () => {
    assert.deepEqual(servedSchema(kitchen, "place").properties.piece, { type: "string", enum: ["king", "queen", "pawn"], description: "Which piece." });
    assert.deepEqual(servedSchema(kitchen, "roll").properties.faces, { type: "number", enum: [4, 6, 20], description: "How many faces." });
    assert.deepEqual(servedSchema(kitchen, "sure_thing").properties.value, { type: "boolean", const: true });
  });

  test("interfaces and object types become nested objects with their own descriptions; an `Integer` alias an integer", () => {
    assert.deepEqual(servedSchema(kitchen, "place").properties.at, {
      type: "object",
      properties: {
        row: { type: "integer", description: "Row, from 0." },
        column: { type: "number" },
        label: { type: ["string", "null"] },
        rank: { anyOf: [{ type: "integer" }, { type: "null" }] },
      },
      required: ["row", "column"],
      description: "Where it goes.",
    });
    assert.deepEqual(servedSchema(kitchen, "roll").properties.times, { type: "integer", description: "How many rolls." });
  });

  test("a lone object parameter is destructured: its properties are the tool's arguments", () => {
    const configure = kitchen.tools.find((t) => t.toolName === "configure")!;
    assert.equal(configure.parameters.passing, "object");
    assert.deepEqual(servedSchema(kitchen, "configure"), {
      type: "object",
      properties: { strict: { type: "boolean" }, limit: { type: "number", description: "Seconds." }, mode: { type: "string", const: "fast" } },
      required: ["strict", "mode"],
      additionalProperties: false,
    });
  });

  test("JSDoc gives the tool description (with @returns) and @param the argument descriptions", () => {
    const place = kitchen.tools.find((t) => t.toolName === "place")!;
    assert.equal(place.description, "Put a piece somewhere. Returns the new board.");
    assert.equal(kitchen.description, "A board game: tests every supported parameter type.");
    assert.deepEqual(kitchen.tools.find((t) => t.toolName === "sure_thing")!.description, "");
    assert.match(kitchen.warnings.join("\n"), /Board\.sureThing has no JSDoc description/);
  });

  test("private, protected, #private, _-prefixed and @internal methods, getters and the scorer are not tools; names become snake_case", () => {
    assert.deepEqual(kitchen.tools.map((t) => [t.toolName, t.memberName]), [["place", "place"], ["roll", "roll"], ["configure", "configure"], ["sure_thing", "sureThing"]]);
    assert.deepEqual(kitchen.score, { kind: "method", name: "score", takesText: false, isAsync: false });
  });

  test("the constructor's parameters are the seed fields", () => {
    assert.deepEqual(kitchen.seed, {
      passing: "positional",
      fields: [
        { name: "size", type: { kind: "number", integer: false }, optional: false },
        { name: "name", type: { kind: "string" }, optional: true },
      ],
    });
  });

  test("an unsupported parameter type is an error naming the method and the parameter", () => {
    const cases: [string, RegExp][] = [
      ["when: Date", /Game\.act: parameter 'when' has type 'Date', a class or object with methods/],
      ["anything: any", /Game\.act: parameter 'anything' has type 'any'/],
      ["pair: [number, number]", /Game\.act: parameter 'pair' has type '\[number, number\]', a tuple/],
      ["value: string | number", /Game\.act: parameter 'value' has type 'string \| number', a union of different types/],
      ["scores: Record<string, number>", /Game\.act: parameter 'scores' has type 'Record<string, number>', an index signature/],
      ["callback: () => void", /Game\.act: parameter 'callback' has type '\(\) => void', a function/],
      ["at: { when: Date }, n: number", /Game\.act: parameter 'at', property 'when' has type 'Date'/],
      ["...words: string[]", /Game\.act: rest parameter 'words'/],
      ["other: Game, n: number", /Game\.act: parameter 'other' has type 'Game', a class instance, which JSON cannot carry/],
    ];
    for (const [parameters, message] of cases) {
      assert.throws(() => analyzeSource(`export class Game {\n  /** Act. */\n  act(${parameters}): void {}\n${SCORE}}`), (error: Error) => {
        assert.ok(error instanceof ScaffoldError, String(error));
        assert.match(error.message, message);
        return true;
      });
    }
  });

  test("a module without a scoring function is an error saying what to add", () => {
    assert.throws(() => analyzeSource(`export class Game {\n  /** Move. */\n  move(): void {}\n}`), /no scoring function — export a function \(or give the class a method or getter\) named score, reward or verify, or tag one with @reward/);
    assert.throws(() => analyzeSource(`export class Game {\n  move(): void {}\n  score(): string { return ""; }\n}`), /Game\.score returns 'string'; a scoring function must return a number or \{ reward: number, … \}/);
  });

  test("the scorer may be a @reward-tagged method taking the final text, a getter, or an exported function", () => {
    const tagged = analyzeSource(`export class Game {\n  move(): void {}\n  score(): number { return 0; }\n  /** @reward */\n  async grade(finalText: string): Promise<{ reward: number; note: string }> { return { reward: 1, note: finalText }; }\n}`);
    assert.deepEqual(tagged.score, { kind: "method", name: "grade", takesText: true, isAsync: true });
    assert.deepEqual(tagged.tools.map((t) => t.toolName), ["move", "score"]);
    const getter = analyzeSource(`export class Game {\n  move(): void {}\n  get reward(): number { return 1; }\n}`);
    assert.deepEqual(getter.score, { kind: "getter", name: "reward", takesText: false, isAsync: false });
    const fn = analyzeSource(`export class Game {\n  move(): void {}\n}\nexport function verify(game: Game, text?: string): number { return 0; }`);
    assert.deepEqual(fn.score, { kind: "function", name: "verify", takesText: true, isAsync: false });
  });

  test("function-style modules: a state factory, functions taking the state first, a scorer", () => {
    const domain = analyzeSource(`
      export interface Tally { count: number; target: number }
      /** Starts a tally. @param target The count to reach. */
      export function createState(target: number, start = 0): Tally { return { count: start, target }; }
      /** Add to the tally. @param amount How much. */
      export function add(tally: Tally, amount: number): number { return (tally.count += amount); }
      export const readTally = (tally: Tally): number => tally.count;
      export function score(tally: Tally): number { return tally.count === tally.target ? 1 : 0; }
      export function helper(text: string): string { return text; }
    `);
    assert.equal(domain.style, "functions");
    assert.deepEqual(domain.stateFactory, { name: "createState", isAsync: false });
    assert.deepEqual(domain.seed.fields.map((f) => [f.name, f.optional, f.description]), [["target", false, "The count to reach."], ["start", true, undefined]]);
    assert.deepEqual(domain.tools.map((t) => t.toolName), ["add", "read_tally"]);
    assert.deepEqual(servedSchema(domain, "add").properties, { amount: { type: "number", description: "How much." } });
    assert.match(domain.warnings.join("\n"), /helper\(\) does not take the state first: it is not a tool/);
    assert.throws(() => analyzeSource(`export function add(n: number): number { return n; }\nexport function score(n: number): number { return n; }`), /needs an exported state factory — createState\(\.\.\.\) or a function tagged @state/);
  });
  test("several classes with a scorer need --class; a cleanup method becomes disposeState", () => {
    const source = `
      export class Easy {\n  /** Move. */\n  move(): void {}\n  score(): number { return 1; }\n}
      export class Hard {\n  /** Move. */\n  move(): void {}\n  /** Frees the board. */\n  dispose(): void {}\n  score(): number { return 0; }\n}`;
    const path = moduleFile(source);
    assert.throws(() => analyzeDomainModule(path), /exports several classes with a scoring member \(Easy, Hard\); choose one with --class/);
    const hard = analyzeDomainModule(path, { className: "Hard" });
    assert.equal(hard.className, "Hard");
    assert.deepEqual(hard.dispose, { kind: "method", name: "dispose" });
    assert.deepEqual(hard.tools.map((t) => t.toolName), ["move"]);
    assert.match(appSource(hard, { name: "hard", appDir: join(PROJECT_ROOT, "resources_servers", "hard") }), /disposeState: \(hard\) => hard\.dispose\(\),/);
  });
});

describe("wrapping the Wordle domain module", () => {
  let root: string;
  let result: WrapResult;
  let envDir: string;
  let wordle: ResourcesServerDefinition<unknown, Record<string, unknown>>;

  before(async () => {
    root = freshRoot();
    result = await wrapDomainModule({ modulePath: WORDLE, name: "wordle", rootDir: root });
    envDir = result.envDir;
    wordle = (await import(pathToFileURL(join(envDir, "app.ts")).href)).default;
  });

  test("writes the environment's files, and refuses to write over them", async () => {
    assert.equal(envDir, join(root, "resources_servers", "wordle"));
    assert.deepEqual(result.files, ["app.ts", "configs/wordle.yaml", "data/example.jsonl", "data/verifier_cases.jsonl", "tests/app.test.ts", "README.md", "rollout.ts", "package.json"]);
    for (const file of result.files) assert.ok(existsSync(join(envDir, file)), file);
    assert.deepEqual(result.warnings, []);
    await assert.rejects(wrapDomainModule({ modulePath: WORDLE, name: "wordle", rootDir: root }), /already exists; refusing to overwrite it/);
  });

  test("the app imports the module and copies none of its logic", () => {
    const app = readFileSync(join(envDir, "app.ts"), "utf8");
    assert.match(app, /^import \{ Wordle \} from "(\.\.\/)+.*tests\/scaffold\/fixtures\/wordle\/wordle\.ts";$/m);
    assert.match(app, /^import \{ resourcesServer, tool \} from "(\.\.\/)+.*src\/server\/index\.ts";$/m);
    assert.match(app, /state: \(seed\) => new Wordle\(requireSeed\(seed, "Wordle"\)\)/);
    assert.match(app, /run: \(wordle: Wordle, \{ word \}\) => domainCall\(\(\) => wordle\.guess\(word\)\)/);
    assert.match(app, /run: \(wordle\) => \(wordle === undefined \? 0 : wordle\.score\(\)\)/);
    assert.match(app, /position: z\.literal\(\[1, 2, 3, 4, 5\]\)\.describe\("Which letter to reveal, counted from 1\."\)/);
    // Nothing of the game itself: no feedback squares, no comparison, no reward arithmetic, no task list.
    for (const logic of ["🟩", "compareWords", "HINT_COST", "unmatched", "#answer", "Math.", "EXAMPLE_SEEDS", "slate"]) assert.ok(!app.includes(logic), `app.ts contains '${logic}'`);
  });

  test("the generated app, test and rollout script are queued for the type check", () => {
    generatedFiles.push(...["app.ts", "tests/app.test.ts", "rollout.ts"].map((file) => join(envDir, file)));
  });

  test("the example rows and verifier cases come from the module, with the tools the server serves", () => {
    const rows = readRows(join(envDir, "data/example.jsonl"));
    assert.equal(rows.length, 5);
    assert.deepEqual(rows.map((r) => r.answer), ["crane", "slate", "pride", "ghost", "flame"]);
    assert.equal(rows[2]!.maxGuesses, 4);
    assert.equal(rows[0]!.responses_create_params.input[0].content, 'Play Wordle: find the hidden five-letter word. Open with "slate".');
    for (const row of rows) assert.deepEqual(row.responses_create_params.tools, wordle.toolDefinitions);
    const cases = readRows(join(envDir, "data/verifier_cases.jsonl"));
    assert.deepEqual(cases.map((c) => [c.case, c.expected_reward]), [["full_reward", 1], ["zero_reward", 0], ["zero_reward", 0], ["malformed", 0.8]]);
    assert.deepEqual(cases[0]!.tool_calls, [{ name: "guess", arguments: { word: "slate" } }, { name: "guess", arguments: { word: "crane" } }]);
    assert.deepEqual(cases[0]!.row.responses_create_params.tools, wordle.toolDefinitions);
  });

  test("the generated tests pass as generated (node --import tsx --test, in the new root)", async () => {
    // Without this runner's context, or the child would take itself for a file of this run.
    const { NODE_TEST_CONTEXT: _context, ...childEnv } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", "resources_servers/wordle/tests/app.test.ts"], { cwd: root, env: childEnv });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, output);
    assert.match(output, /ℹ pass 9\n/);
    assert.match(output, /ℹ fail 0\n/);
  });

  describe("over HTTP", () => {
    let graph: InProcessGraph;
    const client = http();
    type Cookies = Record<string, string>;
    const post = async (path: string, json: unknown, cookies: Cookies = {}) => {
      const answer = await client.request(`${graph.url("wordle")}${path}`, { method: "POST", json, cookies });
      return { status: answer.status, json: <T = any>() => answer.json<T>(), cookies: { ...cookies, ...answer.cookies } };
    };
    const response = { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
    const verify = async (cookies: Cookies, row: Record<string, unknown> = { responses_create_params: { input: "x" } }) =>
      (await post("/verify", { ...row, response }, cookies)).json<{ reward: number }>().reward;

    before(async () => (graph = await startServers({ wordle: [wordle] })));
    after(async () => {
      await graph.close();
      await client.close();
    });

    test("GET /tools equals the tools of the dataset rows", async () => {
      const served = (await client.request(`${graph.url("wordle")}/tools`, { method: "GET" })).json<{ name: string }[]>();
      assert.deepEqual(served.map((t) => t.name), ["guess", "remaining_guesses", "letter_hint", "history"]);
      for (const row of readRows(join(envDir, "data/example.jsonl"))) assert.deepEqual(row.responses_create_params.tools, served);
    });

    test("a seeded session's guesses change its state, and verify returns the module's score", async () => {
      let { cookies } = await post("/seed_session", { responses_create_params: { input: "x" }, answer: "crane", maxGuesses: 3 });
      const first = await post("/guess", { word: "trace" }, cookies);
      cookies = first.cookies;
      assert.deepEqual(first.json(), { word: "trace", squares: "⬛🟩🟩🟨🟩", verdicts: ["absent", "correct", "correct", "present", "correct"], solved: false, remaining_guesses: 2 });
      assert.equal(await verify(cookies), 0);
      const hint = await post("/letter_hint", { position: 1 }, cookies);
      assert.deepEqual(hint.json(), { position: 1, letter: "c", hints_used: 1 });
      assert.equal((await post("/guess", { word: "crane" }, cookies)).json().solved, true);
      assert.deepEqual((await post("/remaining_guesses", {}, cookies)).json(), { used: 2, remaining: 1, over: true });
      assert.equal(await verify(cookies), 0.8);
    });

    test("rule errors of the module reach the model as a 400; bad argument types are a 422", async () => {
      const { cookies } = await post("/seed_session", { answer: "crane" });
      const refused = await post("/guess", { word: "toolong" }, cookies);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.json(), { detail: "a guess must be 5 letters a-z, got 'toolong'" });
      assert.equal((await post("/letter_hint", { position: 6 }, cookies)).status, 422);
      assert.equal((await post("/seed_session", { answer: 5 })).status, 422);
    });

    test("the answer may come as ground_truth or in a one-element list", async () => {
      for (const row of [{ ground_truth: [{ answer: "ghost" }] }, { answer: ["ghost"] }, { ground_truth: { answer: "ghost" } }]) {
        const { cookies } = await post("/seed_session", row);
        assert.equal((await post("/guess", { word: "ghost" }, cookies)).json().solved, true, JSON.stringify(row));
        assert.equal(await verify(cookies), 1);
      }
    });

    test("two concurrent sessions never share state", async () => {
      const a = (await post("/seed_session", { answer: "crane" })).cookies;
      const b = (await post("/seed_session", { answer: "slate" })).cookies;
      const play = async (cookies: Cookies, words: string[]) => {
        for (const word of words) assert.equal((await post("/guess", { word }, cookies)).status, 200);
      };
      await Promise.all([play(a, ["slate", "pride", "crane"]), play(b, ["audio", "ghost", "pride", "crane"])]);
      assert.deepEqual((await post("/history", {}, a)).json().guesses.map((g: { word: string }) => g.word), ["slate", "pride", "crane"]);
      assert.equal(await verify(a), 1);
      assert.equal(await verify(b), 0, "b never guessed its answer, slate");
      assert.deepEqual((await post("/remaining_guesses", {}, b)).json(), { used: 4, remaining: 2, over: false });
      assert.equal(await verify({}), 0, "a session never seeded scores 0");
    });
  });

  test("rollouts of the 5 rows through simple_agent + scripted_model each complete with a numeric reward", async () => {
    const { resolved } = await loadGlobalConfig({
      configPaths: [join(envDir, "configs/wordle.yaml"), join(PROJECT_ROOT, "responses_api_models/scripted_model/configs/scripted_model.yaml")],
      cwd: root,
      envYamlPath: null,
      overrides: ["++head_server.port=0"],
      logger: { warn: () => {} },
    });
    const graph = await startInProcess(resolved, { wordle_resources_server: wordle });
    try {
      const outputPath = join(scratch("gym-wrap-rollouts-"), "wordle.jsonl");
      const quiet = new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;
      const summary = await collectRollouts({ client: graph.client, inputPath: join(envDir, "data/example.jsonl"), outputPath, agentName: "wordle_simple_agent", print: () => {}, progressStream: quiet });
      assert.equal(summary.failed, 0);
      const rollouts = readRows(outputPath);
      assert.equal(rollouts.length, 5);
      for (const rollout of rollouts) {
        assert.equal(typeof rollout.reward, "number");
        assert.ok(rollout.response.output.some((item: { type: string }) => item.type === "function_call"), "the policy called the tools");
      }
      // The heuristic guesses the quoted word: the row whose answer it is ("slate") is solved, the first is not.
      const byTask = rollouts.sort((x, y) => x._ng_task_index - y._ng_task_index).map((r) => r.reward);
      assert.equal(byTask[1], 1);
      assert.equal(byTask[0], 0);
    } finally {
      await graph.close();
    }
  });
});

describe("wrapping other modules", () => {
  const TALLY = `
    export interface Tally { count: number; target: number }
    /** Count up to a target. @param target The count to reach. */
    export function createState(target: number, start = 0): Tally { return { count: start, target }; }
    /** Add to the tally. @param amount How much to add. */
    export function add(tally: Tally, amount: number): { count: number } { tally.count += amount; return { count: tally.count }; }
    /** Read the tally. */
    export function read(tally: Tally): number { return tally.count; }
    /** 1 when the tally reached its target. */
    export function score(tally: Tally): number { return tally.count === tally.target ? 1 : 0; }
    export const EXAMPLE_SEEDS = [3, 5, 7, 9, 11].map((target) => ({ target, prompt: \`Add up to \${target}.\` }));
  `;

  test("a function-style module: the state factory seeds each session, functions are tools, a derived malformed case", async () => {
    const root = freshRoot();
    const { envDir, warnings } = await wrapDomainModule({ modulePath: moduleFile(TALLY, "tally.ts"), name: "tally", rootDir: root });
    const app = readFileSync(join(envDir, "app.ts"), "utf8");
    assert.match(app, /import \* as tally from ".*tally\.ts";/);
    assert.match(app, /type State = Awaited<ReturnType<typeof tally\.createState>>;/);
    assert.match(app, /const \{ target, start \} = requireSeed\(seed, "createState\(\)"\);\n\s+return tally\.createState\(target, start\);/);
    assert.match(app, /run: \(state: State, \{ amount \}\) => domainCall\(\(\) => tally\.add\(state, amount\)\)/);
    assert.match(warnings.join("\n"), /exports no VERIFIER_CASES: data\/verifier_cases\.jsonl has only a derived malformed case/);
    const cases = readRows(join(envDir, "data/verifier_cases.jsonl"));
    assert.deepEqual(cases.map((c) => [c.case, c.tool_calls, c.output_text, c.expected_reward, c.row.target]), [["malformed", [{ name: "add", arguments: {} }], "", 0, 3]]);

    const definition = (await import(pathToFileURL(join(envDir, "app.ts")).href)).default as ResourcesServerDefinition<unknown, Record<string, unknown>>;
    const graph = await startServers({ tally: [definition] });
    const client = http();
    try {
      const post = (path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("tally")}${path}`, { method: "POST", json, cookies });
      let { cookies } = await post("/seed_session", { target: 2, start: 1 });
      assert.deepEqual((await post("/add", { amount: 1 }, cookies)).json(), { count: 2 });
      const read = await post("/read", {}, cookies);
      assert.equal(read.text, '{"output":2}');
      cookies = read.cookies;
      const verified = await post("/verify", { responses_create_params: { input: "x" }, response: { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] } }, cookies);
      assert.equal(verified.json<{ reward: number }>().reward, 1);
      const early = await post("/read", {});
      assert.equal(early.status, 400);
      assert.match(early.json<{ detail: string }>().detail, /call \/seed_session with the row before any tool/);
      generatedFiles.push(join(envDir, "app.ts"));
    } finally {
      await graph.close();
      await client.close();
    }
  });

  test("a scorer that asks for the final text gets it, and its extra fields reach the verify answer", async () => {
    const RIDDLE = `
      /** A riddle: name the answer in your final message. */
      export class Riddle {
        readonly #answer: string;
        #hints = 0;
        constructor(answer: string) { this.#answer = answer; }
        /** The first letter of the answer. */
        hint(): string { this.#hints++; return this.#answer[0]!; }
        /** @reward */
        grade(finalText: string): { reward: number; hints: number } {
          return { reward: finalText.includes(this.#answer) ? 1 : 0, hints: this.#hints };
        }
      }
      export const EXAMPLE_SEEDS = ["echo", "shadow", "time", "map", "fire"].map((answer) => ({ answer, prompt: "What has keys but opens no locks?" }));
    `;
    const { envDir } = await wrapDomainModule({ modulePath: moduleFile(RIDDLE, "riddle.ts"), name: "riddle", rootDir: freshRoot() });
    const app = readFileSync(join(envDir, "app.ts"), "utf8");
    assert.match(app, /const \{ answer \} = requireSeed\(seed, "Riddle"\);\n\s+return new Riddle\(answer\);/);
    assert.match(app, /run: \(riddle, \{ response \}\) => \(riddle === undefined \? 0 : riddle\.grade\(responseOutputText\(response\)\)\)/);
    generatedFiles.push(join(envDir, "app.ts"));
    const definition = (await import(pathToFileURL(join(envDir, "app.ts")).href)).default as ResourcesServerDefinition<unknown, Record<string, unknown>>;
    const graph = await startServers({ riddle: [definition] });
    const client = http();
    try {
      const post = (path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("riddle")}${path}`, { method: "POST", json, cookies });
      const seeded = await post("/seed_session", { answer: "map" });
      const hint = await post("/hint", {}, seeded.cookies);
      assert.equal(hint.text, '{"output":"m"}');
      const message = { type: "message", id: "m", role: "assistant", status: "completed", content: [{ type: "output_text", text: "It is a map.", annotations: [] }] };
      const verified = await post("/verify", { responses_create_params: { input: "x" }, response: { id: "r", created_at: 1, model: "m", object: "response", output: [message], parallel_tool_calls: true, tool_choice: "auto", tools: [] } }, hint.cookies);
      assert.deepEqual({ reward: verified.json<any>().reward, hints: verified.json<any>().hints }, { reward: 1, hints: 1 });
    } finally {
      await graph.close();
      await client.close();
    }
  });

  test("a default-exported class scored by an exported verify(coin, finalText), with a dispose function beside it", async () => {
    const COIN = `
      /** Land the coin on heads a target number of times, then say "done". */
      export default class Coin {
        #heads = 0;
        constructor(readonly target: number) {}
        /** Flip the coin. @param side The side it lands on. */
        flip(side: "heads" | "tails"): { heads: number } { if (side === "heads") this.#heads++; return { heads: this.#heads }; }
        get heads(): number { return this.#heads; }
      }
      /** 1 when the coin landed heads exactly \`target\` times and the final message says "done". */
      export function verify(coin: Coin, finalText: string): number { return coin.heads === coin.target && finalText.includes("done") ? 1 : 0; }
      export const disposed: number[] = [];
      /** Records the games that were dropped. */
      export function dispose(coin: Coin): void { disposed.push(coin.target); }
      export const EXAMPLE_SEEDS = [1, 2, 3, 4, 5].map((target) => ({ target }));
    `;
    const modulePath = moduleFile(COIN, "coin.ts");
    const { envDir } = await wrapDomainModule({ modulePath, name: "coin", rootDir: freshRoot() });
    const app = readFileSync(join(envDir, "app.ts"), "utf8");
    assert.match(app, /^import Coin, \{ verify, dispose \} from ".*coin\.ts";$/m);
    assert.match(app, /disposeState: \(coin\) => dispose\(coin\),/);
    assert.match(app, /run: \(coin, \{ response \}\) => \(coin === undefined \? 0 : verify\(coin, responseOutputText\(response\)\)\)/);
    generatedFiles.push(join(envDir, "app.ts"));

    const definition = (await import(pathToFileURL(join(envDir, "app.ts")).href)).default as ResourcesServerDefinition<unknown, Record<string, unknown>>;
    const { disposed } = (await import(pathToFileURL(modulePath).href)) as { disposed: number[] };
    const disposedBefore = disposed.length; // generating the malformed case built (and dropped) one game
    const graph = await startServers({ coin: [definition] });
    const client = http();
    try {
      const post = (path: string, json: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("coin")}${path}`, { method: "POST", json, cookies });
      const seeded = await post("/seed_session", { target: 1 });
      const flipped = await post("/flip", { side: "heads" }, seeded.cookies);
      const message = (text: string) => ({ type: "message", id: "m", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
      const verify = async (text: string) =>
        (await post("/verify", { responses_create_params: { input: "x" }, response: { id: "r", created_at: 1, model: "m", object: "response", output: [message(text)], parallel_tool_calls: true, tool_choice: "auto", tools: [] } }, flipped.cookies)).json<{ reward: number }>().reward;
      assert.deepEqual([await verify("done"), await verify("not yet")], [1, 0]);
    } finally {
      await graph.close();
      await client.close();
    }
    assert.deepEqual(disposed.slice(disposedBefore), [1], "the session's game was disposed when the server closed");
  });

  test("gym env wrap writes the environment and prints what to run next; a bad name is a one-line user error (exit 2)", async () => {
    const root = freshRoot();
    const printed: string[] = [];
    const run = async (args: string[]) => {
      const program = new Command("gym").exitOverride();
      registerEnvWrap(program.command("env"), { out: (text) => printed.push(text), err: (text) => printed.push(text) });
      // The CLI's own top level: a user mistake is one line and exit 2.
      return runProgram(program, ["env", "wrap", ...args], (text) => printed.push(text));
    };
    assert.equal(await run([WORDLE, "--name", "word_game", "--root", root]), 0);
    assert.match(printed.join(""), /Created .*resources_servers\/word_game around class Wordle \(tools: guess, remaining_guesses, letter_hint, history; reward: score\):/);
    assert.match(printed.join(""), /node --import tsx --test .*resources_servers\/word_game\/tests\/app\.test\.ts/);
    assert.ok(existsSync(join(root, "resources_servers/word_game/app.ts")));
    printed.length = 0;
    assert.equal(await run([WORDLE, "--name", "Word-Game", "--root", root]), 2);
    assert.deepEqual(printed, ["error: invalid environment name 'Word-Game': use snake_case (lowercase letters, digits and single underscores, starting with a letter), e.g. 'word_guess'\n"]);
    const env = buildProgram(await loadAllCommands()).commands.find((c) => c.name() === "env");
    assert.ok(env?.commands.some((c) => c.name() === "wrap"), "`gym env` has the wrap command");
  });

  test("example rows come from --rows when given; without EXAMPLE_SEEDS or --rows the generator refuses to invent tasks", async () => {
    const noSeeds = moduleFile(TALLY.replace(/export const EXAMPLE_SEEDS[^\n]*\n/, ""), "tally.ts");
    await assert.rejects(wrapDomainModule({ modulePath: noSeeds, name: "tally", rootDir: freshRoot() }), /no example tasks: pass --rows FILE .* or export EXAMPLE_SEEDS .*; the generator does not invent tasks/);
    const rowsFile = join(scratch("gym-wrap-rows-"), "rows.jsonl");
    writeFileSync(rowsFile, [1, 2, 3, 4, 5, 6].map((target) => JSON.stringify({ ground_truth: [{ target }] })).join("\n") + "\n");
    const { envDir, warnings } = await wrapDomainModule({ modulePath: noSeeds, name: "tally", rootDir: freshRoot(), rowsPath: rowsFile });
    const rows = readRows(join(envDir, "data/example.jsonl"));
    assert.deepEqual(rows.map((r) => r.ground_truth), [[{ target: 1 }], [{ target: 2 }], [{ target: 3 }], [{ target: 4 }], [{ target: 5 }]]);
    assert.equal(rows[0]!.responses_create_params.input[0].content, "Count up to a target.");
    assert.match(warnings.join("\n"), /6 example seeds given; data\/example\.jsonl keeps the first 5/);
    writeFileSync(rowsFile, '{"start": 1}\n'.repeat(5));
    await assert.rejects(wrapDomainModule({ modulePath: noSeeds, name: "tally", rootDir: freshRoot(), rowsPath: rowsFile }), /rows\.jsonl:1: not a valid seed for TallyResourcesServer: target: /);
  });
});

test("the generated files type-check under strict settings", () => {
  assert.ok(generatedFiles.length >= 4);
  assert.deepEqual(typeErrors(generatedFiles), []);
});
