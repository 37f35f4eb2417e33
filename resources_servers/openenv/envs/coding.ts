// OpenEnv's coding_env (envs/coding_env/server/python_codeact_env.py, transforms.py): a CodeAction {code} runs as
// Python and the observation is {stdout, stderr, exit_code}. The reward is the safe-coding transform's, from the code's
// text alone: -1.0 when it matches a dangerous pattern (import os, import subprocess, eval(, exec(, __import__,
// open(), else 0.0; then +0.1 when the stripped code is at most 100 characters, and -0.2 when it does not parse.
//
// OpenEnv runs the code in smolagents' LocalPythonExecutor (an AST interpreter that refuses unlisted imports); here
// it runs in CPython inside the project's sandbox (src/sandbox, bubblewrap), never on the host. The interpreter's
// state between the steps of an episode is rebuilt by replaying the episode's earlier cells, silenced.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ActionValidationError, isRecord } from "../../../src/ports/openenv/protocol.ts";
import type { Observation, OpenEnvEnvironment, OpenEnvEnvironmentSpec } from "../../../src/ports/openenv/env-server.ts";
import { SandboxUnavailableError, type SandboxProvider } from "../../../src/sandbox/index.ts";

const HARNESS = readFileSync(join(import.meta.dirname, "coding_harness.py"), "utf8");

const DANGEROUS_PATTERNS = [/import\s+os/u, /import\s+subprocess/u, /eval\(/u, /exec\(/u, /__import__/u, /open\(/u];
const DANGEROUS_SOURCES = ["import\\s+os", "import\\s+subprocess", "eval\\(", "exec\\(", "__import__", "open\\("];

/** Python's str.strip(): the characters str.isspace() is true for. */
const PY_SPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const pythonStrip = (text: string) => text.replace(new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, "gu"), "");

/** CodeSafetyTransform then CodeQualityTransform, in their order and with their float operations. */
export function codingReward(code: string, syntaxOk: boolean): { reward: number; safetyViolation?: string } {
  let reward: number | null = null;
  let safetyViolation: string | undefined;
  const hit = DANGEROUS_PATTERNS.findIndex((pattern) => pattern.test(code));
  if (hit >= 0) {
    reward = -1.0;
    safetyViolation = DANGEROUS_SOURCES[hit];
  } else reward = 0.0;
  let quality = 0.0;
  if ([...pythonStrip(code)].length <= 100) quality += 0.1;
  if (!syntaxOk) quality += -0.2;
  reward += quality;
  return safetyViolation === undefined ? { reward } : { reward, safetyViolation };
}

export interface CodingOptions {
  sandbox: SandboxProvider;
  /** Wall clock of one cell (its replayed history included). */
  cellTimeoutMs?: number;
}

class CodingEnvironment implements OpenEnvEnvironment {
  private history: string[] = [];
  private episodeId: string = randomUUID();
  private stepCount = 0;
  private lastExitCode = 0;

  constructor(private readonly options: CodingOptions) {}

  reset(): Observation {
    this.history = [];
    this.episodeId = randomUUID();
    this.stepCount = 0;
    this.lastExitCode = 0;
    // No code yet: the safety transform leaves the reward None, the quality one makes it 0.0.
    return { fields: { stdout: "", stderr: "", exit_code: 0 }, reward: 0.0, done: false, metadata: {} };
  }

  async step(action: Record<string, unknown>): Promise<Observation> {
    for (const key of Object.keys(action)) {
      if (key !== "code" && key !== "metadata") throw new ActionValidationError("CodeAction", [{ type: "extra_forbidden", loc: [key], msg: "Extra inputs are not permitted", input: action[key] }]);
    }
    if (action.metadata !== undefined && !isRecord(action.metadata)) throw new ActionValidationError("CodeAction", [{ type: "dict_type", loc: ["metadata"], msg: "Input should be a valid dictionary", input: action.metadata }]);
    const code = action.code;
    if (typeof code !== "string") throw new ActionValidationError("CodeAction", [{ type: code === undefined ? "missing" : "string_type", loc: ["code"], msg: code === undefined ? "Field required" : "Input should be a valid string", input: code === undefined ? action : code }]);

    const run = await this.options.sandbox.run({
      program: { language: "python", source: HARNESS },
      files: { "cell.py": code, "history.json": JSON.stringify(this.history) },
      limits: { wallMs: this.options.cellTimeoutMs ?? 10_000 },
    });
    const lines = run.stdout.split("\n");
    let syntax: unknown;
    try {
      syntax = JSON.parse(lines[0] ?? "");
    } catch {
      syntax = undefined;
    }
    if (!isRecord(syntax) || typeof syntax.syntax_ok !== "boolean") {
      // The harness died before it parsed the cell: the sandbox's fault, not the code's (nothing of it ran).
      throw new SandboxUnavailableError(`the coding harness did not start (exit ${run.exitCode ?? run.signal}; ${run.stderr.slice(0, 300)})`, "check that the sandbox's Python runs (gym env test openenv)");
    }
    let result: { stdout: string; stderr: string; exit_code: number };
    const last = [...lines].reverse().find((line) => line.trim() !== "");
    let parsed: unknown;
    try {
      parsed = last === undefined || lines.length < 3 ? undefined : JSON.parse(last);
    } catch {
      parsed = undefined;
    }
    if (isRecord(parsed) && typeof parsed.stdout === "string" && typeof parsed.stderr === "string" && typeof parsed.exit_code === "number") {
      result = { stdout: parsed.stdout, stderr: parsed.stderr, exit_code: parsed.exit_code };
    } else if (run.timedOut) {
      result = { stdout: "", stderr: `TimeoutError: the code ran past ${this.options.cellTimeoutMs ?? 10_000} ms`, exit_code: 1 };
    } else {
      result = { stdout: "", stderr: run.stderr || `the program ended (exit ${run.exitCode ?? run.signal}) before its result was written`, exit_code: 1 };
    }
    // A cell that ran out of time is not replayed: it would end every later cell of the episode the same way.
    if (!run.timedOut) this.history.push(code);
    this.stepCount++;
    this.lastExitCode = result.exit_code;
    const { reward, safetyViolation } = codingReward(code, syntax.syntax_ok);
    const metadata: Record<string, unknown> = { last_code: code };
    if (safetyViolation !== undefined) metadata.safety_violation = safetyViolation;
    return { fields: result, reward, done: false, metadata };
  }

  state() {
    return { episode_id: this.episodeId, step_count: this.stepCount, last_exit_code: this.lastExitCode };
  }
}

export function codingEnvironment(options: CodingOptions): OpenEnvEnvironmentSpec {
  return {
    name: "coding_env",
    description: "Runs Python code and returns stdout, stderr and the exit code (OpenEnv's coding_env), in the project's sandbox.",
    create: () => new CodingEnvironment(options),
    schemas: {
      action: { title: "CodeAction", type: "object", properties: { metadata: { type: "object" }, code: { type: "string" } }, required: ["code"], additionalProperties: false },
      observation: { title: "CodeObservation", type: "object", properties: { stdout: { type: "string" }, stderr: { type: "string" }, exit_code: { type: "integer" } } },
      state: { title: "CodeState", type: "object", properties: { episode_id: { type: ["string", "null"] }, step_count: { type: "integer" }, last_exit_code: { type: "integer" } } },
    },
  };
}
