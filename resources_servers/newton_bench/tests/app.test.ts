// newton_bench: the law evaluator's Python rules, m0_gravity's experiments and scoring, the HTTP contract (seed,
// tools, verify with a judge model server), and parity with NeMo Gym's stored rollouts (tool outputs replayed, rewards
// re-scored with the stored symbolic verdicts as the judge's answers).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { z } from "zod";
import { assistantMessage, functionCallItem, http, responseWith, sharedDataDir, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import { HttpError, responsesApiModel } from "../../../src/server/index.ts";
import { reverifyRollouts } from "../../../src/rollouts/reverify.ts";
import { readJsonl } from "../../../src/rollouts/jsonl.ts";
import { compileLaw, LawRuntimeError } from "../law-eval.ts";
import { UnsupportedLawError } from "../law-python.ts";
import { formatExp, runGravityExperiment } from "../gravity.ts";
import { judgeVerdict, newtonBenchReward, rmsle, scoreLaw, validateGravityFunction } from "../evaluation.ts";
import { seededRng } from "../rng.ts";
import { correctPow } from "../pow.ts";
import { newtonBench } from "../app.ts";
import { NEWTON_BENCH_COMMIT, NEWTON_BENCH_FILE_SHA256, NEWTON_BENCH_RAW_BASE_URL_ENV } from "../newton-bench-text.ts";

const law = (body: string) => compileLaw(`def discovered_law(mass1, mass2, distance):\n${body.replace(/^/gm, "    ")}`);
const pythonError = (body: string, args: number[] = [1, 2, 3]) => {
  try {
    law(body).call(args);
  } catch (error) {
    if (error instanceof LawRuntimeError) return `${error.pythonType}: ${error.message}`;
    throw error;
  }
  return "no error";
};

describe("discovered_law evaluator", () => {
  test("arithmetic, constants, tuple assignment, augmented assignment and if/else run as Python", () => {
    const f = law('"""doc"""\nimport math\nC, p = 2.0, 2\nF = C * mass1 * mass2\nF /= distance ** p\nif distance > 10:\n    return 0.0\nelif distance > 5:\n    return -1\nelse:\n    return F');
    assert.equal(f.call([1, 2, 2]), (2 * 1 * 2) / 4);
    assert.equal(f.call([1, 2, 20]), 0);
    assert.equal(f.call([1, 2, 6]), -1);
  });
  test("math and numpy are there without an import, as in NewtonBench's exec globals", () => {
    assert.equal(law("return math.pow(distance, 2) + np.sqrt(mass1) + math.pi * 0").call([4, 0, 3]), 11);
    assert.equal(law("from math import sqrt as s\nreturn s(mass1)").call([9, 0, 0]), 3);
  });
  test("the arguments are float64: dividing by them at zero is inf, not ZeroDivisionError", () => {
    assert.equal(law("return 1 / distance").call([1, 1, 0]), Infinity);
    assert.equal(pythonError("return 1 / 0"), "ZeroDivisionError: division by zero");
    assert.equal(pythonError("C = 2.0\nreturn C / 0"), "ZeroDivisionError: float division by zero");
  });
  test("Python float overflow and math's domain errors raise with Python's messages", () => {
    assert.equal(pythonError("return 1e200 ** 2"), "OverflowError: (34, 'Numerical result out of range')");
    assert.equal(pythonError("return math.log(mass1 - mass1)"), "ValueError: math domain error");
    assert.equal(pythonError("return math.exp(1000.0)"), "OverflowError: math range error");
    assert.equal(pythonError("return G * mass1"), "NameError: name 'G' is not defined");
  });
  test("a construct it does not read is UnsupportedLawError, never a guess", () => {
    assert.throws(() => law("for i in range(3):\n    pass\nreturn 1.0"), UnsupportedLawError);
    assert.throws(() => law("return sum([mass1, mass2])"), UnsupportedLawError);
    assert.throws(() => compileLaw("C = 1.0\ndef discovered_law(mass1, mass2, distance):\n    return C"), UnsupportedLawError);
  });
  test("code that is not Python is a SyntaxError raised by the law", () => {
    assert.throws(() => compileLaw("def discovered_law(mass1, mass2, distance):\n    return (mass1 +"), (e: unknown) => e instanceof LawRuntimeError && e.pythonType === "SyntaxError");
  });
});

const setup = { difficulty: "easy", version: "v0", system: "vanilla_equation", noiseLevel: 0 } as const;
const request = (fields: Partial<{ mass1: number; mass2: number; distance: number; initial_velocity: number | null; duration: number | null; time_step: number | null }> = {}) => ({
  mass1: 1,
  mass2: 1,
  distance: 1,
  initial_velocity: null,
  duration: null,
  time_step: null,
  ...fields,
});

describe("m0_gravity experiments", () => {
  test("vanilla_equation measures the law itself: easy v0 at unit masses and distance is the hidden constant", () => {
    assert.equal(runGravityExperiment(request(), setup, seededRng(1)), 6.674e-5);
    assert.equal(runGravityExperiment(request({ mass1: 0 }), setup, seededRng(1)), 0);
  });
  test("noise is relative: 1% noise moves a measurement by about 1%", () => {
    const noisy = runGravityExperiment(request(), { ...setup, noiseLevel: 0.01 }, seededRng(3)) as number;
    assert.notEqual(noisy, 6.674e-5);
    assert.ok(Math.abs(noisy / 6.674e-5 - 1) < 0.05);
  });
  test("a Python float overflow inside the law is NewtonBench's {error: str(e)}; an inf product is no error", () => {
    assert.equal(runGravityExperiment(request({ mass1: 1e200, mass2: 1e200 }), { ...setup, difficulty: "medium" }, seededRng(1)), Infinity);
    assert.deepEqual(runGravityExperiment(request({ mass1: 1e100, mass2: 1e100 }), { ...setup, difficulty: "medium" }, seededRng(1)), { error: "(34, 'Numerical result out of range')" });
  });
  test("simple_system without a duration is Python's TypeError; without a velocity the trajectory is nan", () => {
    const linear = { ...setup, system: "simple_system" } as const;
    assert.deepEqual(runGravityExperiment(request(), linear, seededRng(1)), { error: "unsupported operand type(s) for /: 'NoneType' and 'NoneType'" });
    const result = runGravityExperiment(request({ duration: 0.05, time_step: 0.01 }), linear, seededRng(1)) as { position: string[]; time: string[] };
    assert.deepEqual(result.time, ["0.000e+00", "1.000e-02", "2.000e-02", "3.000e-02", "4.000e-02"]);
    assert.deepEqual(result.position, ["1.000000e+00", "nan", "nan", "nan", "nan"]);
  });
  test("a trajectory keeps its first 20 samples and never integrates the rest", () => {
    const orbit = runGravityExperiment(request({ initial_velocity: 0.01, duration: 1e12, time_step: 0.1 }), { ...setup, system: "complex_system" }, seededRng(1)) as { position: string[][] };
    assert.equal(orbit.position.length, 20);
    assert.deepEqual(orbit.position[0], ["1.000000e+00", "0.000000e+00"]);
  });
  test("powers round as glibc's pow, not V8's Math.pow: 2 ** 1.5 is 2.8284271247461903", () => {
    assert.equal(Math.pow(2, 1.5), 2.82842712474619);
    assert.equal(correctPow(2, 1.5), 2.8284271247461903);
    assert.equal(runGravityExperiment(request({ mass1: 5, mass2: 5, distance: 2 }), setup, seededRng(1)), 0.0005899038322048773);
  });
  test('"{:.Ne}" is Python\'s: two exponent digits, signed zero, nan and inf', () => {
    assert.deepEqual([formatExp(1234.5, 3), formatExp(-0, 6), formatExp(NaN, 6), formatExp(-Infinity, 3), formatExp(1e-100, 2)], ["1.234e+03", "-0.000000e+00", "nan", "-inf", "1.00e-100"]);
  });
});

describe("m0_gravity scoring", () => {
  test("NewtonBench's signature check: the exact parameter list, and a return with something after it", () => {
    assert.equal(validateGravityFunction("def discovered_law(mass1, mass2, distance):\n    return 1"), undefined);
    assert.equal(validateGravityFunction("def discovered_law(m1, m2, r):\n    return 1"), "Invalid function signature");
    assert.equal(validateGravityFunction("def discovered_law(mass1, mass2, distance):\n    x = 1"), "No return statement found");
  });
  test("the true law scores RMSLE 0; a wrong one scores on NewtonBench's scale", () => {
    assert.equal(scoreLaw("def discovered_law(mass1, mass2, distance):\n    C = 6.674e-05\n    return C * mass1 * mass2 / (distance ** 1.5)", "easy", "v0", seededRng(5)).rmsle, 0);
    const wrong = scoreLaw("def discovered_law(mass1, mass2, distance):\n    return (mass1 * mass2) / (distance ** 2)", "easy", "v0", seededRng(5));
    assert.ok(Math.abs(wrong.rmsle - 5.25) < 0.15, String(wrong.rmsle));
  });
  test("RMSLE drops nan points, compares magnitudes, and is nan when nothing is left", () => {
    assert.equal(rmsle([1, NaN, -3], [1, 5, 3]), 0);
    assert.ok(Number.isNaN(rmsle([NaN], [1])));
  });
  test("the reward: 0.3 symbolic + 0.7 (1 − 2x/(x+3)); without an RMSLE the verdict alone (1 / −0.3)", () => {
    assert.equal(newtonBenchReward(0, true), 1);
    assert.equal(newtonBenchReward(3, false), -0.3 + 0.7 * 0);
    assert.deepEqual([newtonBenchReward(NaN, true), newtonBenchReward(Infinity, false), newtonBenchReward(NaN, null)], [1, -0.3, 0]);
  });
  test("the judge's verdict: the first 'Answer: YES|NO', else the last standalone YES or NO, else none", () => {
    assert.deepEqual([judgeVerdict("Reasoning: no doubt.\nAnswer: YES"), judgeVerdict("answer:no ... Answer: YES"), judgeVerdict("yes, then NO"), judgeVerdict("unsure")], [true, false, false, undefined]);
  });
});

// ---- over HTTP ----

const MIRROR = "/work/.mirror/HKUST-KnowComp+NewtonBench/repo";
const CACHED = ["modules__common__prompts_base.py.SYMBOLIC_EQUIVALENCE_JUDGE_PROMPT.txt", "modules__m0_gravity__prompts.py.PARAM_DESCRIPTION.txt"].every((file) => existsSync(join(import.meta.dirname, "..", ".newton_bench", file)));
const textsSkip = CACHED || existsSync(MIRROR) ? false : "NewtonBench's judge prompt is neither cached (.newton_bench/) nor in a local mirror of the repository";

/** NewtonBench's two files served from a local mirror at the pinned commit (the server fetches and checks them). */
let files: Server | undefined;
async function serveNewtonBenchFiles(): Promise<void> {
  if (CACHED || !existsSync(MIRROR)) return;
  files = createServer((req, res) => {
    const path = decodeURIComponent(req.url ?? "").replace(/^\//, "");
    if (!Object.hasOwn(NEWTON_BENCH_FILE_SHA256, path)) return void res.writeHead(404).end();
    res.writeHead(200).end(execFileSync("git", ["-C", MIRROR, "show", `${NEWTON_BENCH_COMMIT}:${path}`]));
  });
  await new Promise<void>((resolve) => files!.listen(0, "127.0.0.1", resolve));
  process.env[NEWTON_BENCH_RAW_BASE_URL_ENV] = `http://127.0.0.1:${(files.address() as { port: number }).port}`;
}

/** A judge that answers by the submitted law (Equation 2 of the prompt): the verdicts a test names; others fail. */
function verdictJudge(verdicts: Map<string, string>, prompts: string[]) {
  return responsesApiModel({
    name: "VerdictJudge",
    config: z.looseObject({}),
    async responses({ params }) {
      const input = params.input as { content: string }[];
      const prompt = input[0]!.content;
      prompts.push(prompt);
      const submitted = prompt.slice(prompt.lastIndexOf("Equation 2: ") + "Equation 2: ".length);
      const answer = verdicts.get(submitted);
      if (answer === undefined) throw new HttpError(503, "verdict judge: no verdict for this law");
      return responseWith([assistantMessage(answer)]) as never;
    },
  });
}

const row = { module_name: "m0_gravity", difficulty: "easy", system: "vanilla_equation", law_version: "v0", noise_level: 0.0 };
const params = { input: [{ role: "user", content: "find the law" }] };
const EXACT = "def discovered_law(mass1, mass2, distance):\n    C = 6.674e-05\n    return C * mass1 * mass2 / distance ** 1.5";
const SQUARE = "def discovered_law(mass1, mass2, distance):\n    return mass1 * mass2 / distance ** 2";
const FAILS = "def discovered_law(mass1, mass2, distance):\n    C = 1.0\n    return C / 0 * mass1";

describe("newton_bench over HTTP", { skip: textsSkip }, () => {
  let graph: InProcessGraph;
  const prompts: string[] = [];
  const client = http();
  const verdicts = new Map([
    [EXACT, "Reasoning: same.\nAnswer: YES"],
    [SQUARE, "Answer: NO"],
    [FAILS, "I cannot say."],
  ]);
  before(async () => {
    await serveNewtonBenchFiles();
    graph = await startServers({
      newton_bench: [newtonBench({ rng: () => seededRng(11) }), { judge_model_server: { type: "responses_api_models", name: "judge" } }],
      judge: [verdictJudge(verdicts, prompts)],
    }, { judge_max_retries: 0 });
  });
  after(async () => {
    await graph?.close();
    await client.close();
    files?.close();
  });
  const session = () => {
    let cookies: Record<string, string> = {};
    const post = async (path: string, body: unknown) => {
      const answer = await client.request(`${graph.url("newton_bench")}${path}`, { method: "POST", json: body, cookies });
      cookies = { ...cookies, ...answer.cookies };
      return answer;
    };
    return post;
  };
  const verifyBody = (text: string) => ({ responses_create_params: params, response: responseWith([functionCallItem("run_experiment_m0_gravity", {}), assistantMessage(text)]) });

  test("seed, measure, submit the true law: reward 1 with the judge asked NewtonBench's prompt", async () => {
    const post = session();
    assert.equal((await post("/seed_session", row)).status, 200);
    const measured = await post("/run_experiment_m0_gravity", { mass1: 2, mass2: 3, distance: 4, initial_velocity: null, duration: null, time_step: null });
    assert.equal(measured.text, '{"result":5.0055e-05}');
    const answer = await post("/verify", verifyBody(`Done.\n<final_law>\n${EXACT}\n</final_law>`));
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "difficulty", "system", "noise_level", "law_version", "extracted_law", "rmsle", "exact_accuracy", "symbolic_equivalent", "evaluation_error"]);
    assert.deepEqual([body.reward, body.rmsle, body.exact_accuracy, body.symbolic_equivalent, body.evaluation_error, body.extracted_law], [1, 0, 1, true, null, EXACT]);
    assert.match(answer.text, /"noise_level":0\.0,.*"rmsle":0\.0,"exact_accuracy":1\.0/);
    const prompt = prompts.at(-1)!;
    assert.match(prompt, /^You are a mathematical judge\./);
    assert.ok(prompt.includes("Equation 1: HIDDEN_CONSTANT * mass1 * mass2 / distance ** 1.5\n\nEquation 2: def discovered_law"), prompt.slice(-400));
    assert.ok(prompt.includes("- mass1: mass of the first object."));
  });
  test("verify closes the session: a later tool call or verify is NeMo Gym's 400", async () => {
    const post = session();
    await post("/seed_session", row);
    await post("/verify", verifyBody("no law"));
    const again = await post("/run_experiment_m0_gravity", { mass1: 1, mass2: 1, distance: 1 });
    assert.deepEqual([again.status, again.json()], [400, { detail: "Session not initialized. Please call seed_session first." }]);
  });
  test("no <final_law> block scores 0 without asking the judge", async () => {
    const post = session();
    await post("/seed_session", row);
    const asked = prompts.length;
    const body = (await post("/verify", verifyBody("<final_law>unclosed"))).json<Record<string, unknown>>();
    assert.deepEqual([body.reward, body.extracted_law, body.evaluation_error, prompts.length], [0, null, "No law found in response. Expected <final_law>...</final_law> tags.", asked]);
  });
  test("a wrong law the judge rejects: 0.3·(−1) + 0.7·R(rmsle)", async () => {
    const post = session();
    await post("/seed_session", row);
    const body = (await post("/verify", verifyBody(`<final_law>${SQUARE}</final_law>`))).json<Record<string, number>>();
    assert.equal(body.reward, -0.3 + 0.7 * (1 - (2 * body.rmsle!) / (body.rmsle! + 3)));
    assert.ok(body.rmsle! > 5 && body.rmsle! < 5.5);
  });
  test("a law that raises has no RMSLE; three unreadable verdicts are 'not equivalent': reward −0.3", async () => {
    const post = session();
    await post("/seed_session", row);
    const asked = prompts.length;
    const body = (await post("/verify", verifyBody(`<final_law>${FAILS}</final_law>`))).json<Record<string, unknown>>();
    assert.deepEqual([body.reward, body.rmsle, body.symbolic_equivalent, body.evaluation_error, prompts.length - asked], [-0.3, null, false, "Failed to execute or evaluate submitted code: float division by zero", 3]);
  });
  test("a failed judge call is the judge_failed row, never a reward", async () => {
    const post = session();
    await post("/seed_session", row);
    const body = (await post("/verify", verifyBody(`<final_law>${EXACT.replace("6.674e-05", "7e-05")}</final_law>`))).json<Record<string, unknown>>();
    assert.deepEqual([body.reward, body._ng_failure_class], [0, "judge_failed"]);
  });
  test("an unported module is a 501 naming it at /seed_session; an unknown one NeMo Gym's 400", async () => {
    const unported = await session()("/seed_session", { ...row, module_name: "m5_radioactive_decay" });
    assert.equal(unported.status, 501);
    assert.match(unported.text, /m5_radioactive_decay is not ported/);
    const unknown = await session()("/seed_session", { ...row, module_name: "m99" });
    assert.deepEqual([unknown.status, unknown.json()], [400, { detail: "Invalid module_name 'm99'." }]);
  });
  test("another module's experiment in an m0_gravity session is NeMo Gym's 400; an unseeded verify too", async () => {
    const post = session();
    await post("/seed_session", row);
    const other = await post("/run_experiment_m4_snell_law", { incidence_angle: 30 });
    assert.deepEqual([other.status, other.json()], [400, { detail: "Session configured for 'm0_gravity', but received run_experiment call for 'm4_snell_law'." }]);
    assert.equal((await session()("/verify", verifyBody("x"))).status, 400);
  });
  test("a law using Python the evaluator does not read is a 501 naming the construct", async () => {
    const post = session();
    await post("/seed_session", row);
    const answer = await post("/verify", verifyBody("<final_law>def discovered_law(mass1, mass2, distance):\n    for i in range(2):\n        pass\n    return 1.0</final_law>"));
    assert.equal(answer.status, 501);
    assert.match(answer.text, /a for loop/);
  });
});

// ---- parity with NeMo Gym's stored rollouts ----

const shared = sharedDataDir("newton_bench");
const paritySkip = shared.skip || textsSkip;

describe("newton_bench parity with NeMo Gym's example rollouts", { skip: paritySkip }, () => {
  const rolloutsFile = shared.path ? join(shared.path, "data", "example_rollouts.jsonl") : "";
  const inputsFile = shared.path ? join(shared.path, "data", "example.jsonl") : "";
  let graph: InProcessGraph;
  let stored: Record<string, any>[];
  before(async () => {
    await serveNewtonBenchFiles();
    stored = readFileSync(rolloutsFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    // The judge answers each law with the verdict NeMo Gym's gpt-4.1 gave it.
    const verdicts = new Map(stored.map((r) => [r.extracted_law as string, r.symbolic_equivalent ? "Answer: YES" : "Answer: NO"]));
    graph = await startServers({
      newton_bench: [newtonBench({ rng: () => seededRng(2026) }), { judge_model_server: { type: "responses_api_models", name: "judge" } }],
      judge: [verdictJudge(verdicts, [])],
    });
  });
  after(async () => {
    await graph?.close();
    files?.close();
  });

  test("every row re-scores: exact where NeMo Gym's score is not random, within sampling error where it is", async () => {
    // Rows 1-3 share one prompt: each rollout is paired with its dataset row by position, as materialized inputs are.
    const indexed = (lines: ReturnType<typeof readJsonl>) => lines.map((line, i) => ({ ...line, row: { ...line.row, _ng_task_index: i, _ng_rollout_index: 0 } }));
    const report = await reverifyRollouts({
      client: graph.client,
      rollouts: indexed(readJsonl(rolloutsFile)),
      inputs: indexed(readJsonl(inputsFile)),
      resourcesServerFor: () => "newton_bench",
      verifyOnly: false,
      callDeadlineMs: 10_000,
    });
    const table = report.outcomes.map((o) => `line ${o.lineNumber}: stored ${o.storedReward} → ours ${o.line?.reward}; rmsle ${stored[o.lineNumber - 1]!.rmsle} → ${o.line?.rmsle}; tool outputs different ${o.toolOutputsDifferent}/${o.toolCallsReplayed}${o.failure ? `; ${o.failure.message}` : ""}`).join("\n");
    assert.equal(report.outcomes.length, 5, table);
    for (const outcome of report.outcomes) {
      const ref = stored[outcome.lineNumber - 1]!;
      const ours = outcome.line as Record<string, any>;
      assert.equal(outcome.failure, undefined, table);
      for (const key of ["difficulty", "system", "noise_level", "law_version", "extracted_law", "exact_accuracy", "symbolic_equivalent", "evaluation_error"]) assert.deepEqual(ours[key], ref[key], `${key}\n${table}`);
      if (ref.rmsle === 0) {
        // The law is the true one written in the same order: every point agrees exactly, whatever the points.
        assert.deepEqual([ours.rmsle, ours.reward], [0, ref.reward], table);
      } else {
        // NewtonBench draws its 5000 test points unseeded: the RMSLE is a sample, and so is the reward.
        assert.ok(Math.abs(ours.rmsle - ref.rmsle) <= 0.05 * ref.rmsle + 1e-15, table);
        assert.ok(Math.abs(ours.reward - ref.reward) < 0.02, table);
      }
    }
    // The experiments are deterministic (no noise in these rows): every replayed output is NeMo Gym's, byte for byte.
    const replayed = report.outcomes.reduce((n, o) => n + o.toolCallsReplayed, 0);
    const different = report.outcomes.reduce((n, o) => n + o.toolOutputsDifferent, 0);
    assert.deepEqual([replayed, different], [28, 0], table);
    console.log(table);
  });
});
