// `npm run parity`: re-verifies NeMo Gym's recorded rollouts of every ported answer-verification environment with
// `gym eval reverify --verify-only` (a child process per file, as a user runs it) and prints one table: rows,
// rewards reproduced, rewards different, errors, and the reason of each known difference. Exit 1 when a reward
// differs or a row fails in a way not listed below.
//
// Reads ../shared/nemo-gym-data (NEMO_GYM_SHARED_DATA); never committed. Inputs are NeMo Gym's example dataset, or
// its parity reference set (complete verify requests) where the example dataset no longer holds the recorded prompts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../src/config/index.ts";

const SHARED = process.env.NEMO_GYM_SHARED_DATA ?? join(PROJECT_ROOT, "..", "shared", "nemo-gym-data");

interface ParityRun {
  environment: string;
  config: string;
  rollouts: string;
  /** The dataset rows verify reads (matched by prompt); NeMo Gym's example dataset unless it lacks these prompts. */
  inputs?: string;
  /** Line number → why NeMo Gym's stored reward is not ours (or why the row cannot be scored here). */
  knownRewardDifferences?: Record<number, string>;
  /** Why some stored extra fields differ while the rewards agree. */
  knownFieldDifferences?: string;
}

const RUNS: ParityRun[] = [
  {
    environment: "mcqa",
    config: "mcqa.yaml",
    rollouts: "data/example_rollouts.jsonl",
    inputs: "parity/reference_verify.jsonl",
    knownRewardDifferences: { 3: "stored before NeMo Gym parsed `\\boxed{C: …}`; its verify today gives 1.0 (the parity reference set's expected_reward), as ours" },
  },
  { environment: "gpqa_diamond", config: "gpqa_diamond.yaml", rollouts: "data/example_rollouts.jsonl", inputs: "parity/reference_verify.jsonl" },
  {
    environment: "math_with_judge",
    config: "math_with_judge.yaml",
    rollouts: "data/example_rollouts.jsonl",
    knownFieldDifferences: "judge_evaluations: recorded with the judge on; the shipped config (NeMo Gym's too) has it off, so ours is null",
  },
  { environment: "arc_agi", config: "arc_agi.yaml", rollouts: "data/example_rollouts.jsonl" },
  {
    environment: "nvarc",
    config: "nvarc.yaml",
    rollouts: "data/example_rollouts.jsonl",
    knownRewardDifferences: {
      4: "inductive: scoring runs the model's transform() code, which needs the project's sandbox (not built yet) → 501, a typed failure",
      5: "inductive: as line 4",
    },
    knownFieldDifferences: "problem_id: echoed by the older NeMo Gym server that wrote these rollouts; today's response model (and the reference set) has none",
  },
  {
    environment: "instruction_following",
    config: "instruction_following.yaml",
    rollouts: "data/example_rollouts.jsonl",
    knownFieldDifferences: "kwargs, instruction_id_list, prompt: an older NeMo Gym echoed them at the top level; today's echoes them inside verifier_metadata, as ours",
  },
  { environment: "structured_outputs", config: "structured_outputs_json.yaml", rollouts: "data/example_rollouts.jsonl", inputs: "parity/reference_verify.jsonl" },
  { environment: "structeval", config: "structeval.yaml", rollouts: "data/example_rollouts.jsonl" },
  { environment: "structeval", config: "structeval_nonrenderable.yaml", rollouts: "data/structeval_nonrenderable_example_rollouts.jsonl" },
  { environment: "format_verification", config: "freeform_formatting.yaml", rollouts: "data/example_rollouts.jsonl" },
  {
    environment: "reasoning_gym",
    config: "reasoning_gym.yaml",
    rollouts: "data/example_rollouts.jsonl",
    knownFieldDifferences: "extracted_answer: the stored values keep the text's leading newlines, which every committed NeMo Gym app.py strips (`full_text.strip()`); ours is stripped",
  },
];

interface Outcome {
  lineNumber: number;
  storedReward: unknown;
  newReward?: unknown;
  rewardEqual: boolean;
  differentFields: string[];
  failure?: { failureClass: string; message: string; status?: number };
}

function reverify(run: ParityRun, outputDir: string): { outcomes: Outcome[] } | string {
  const folder = join(SHARED, run.environment);
  const inputs = join(folder, run.inputs ?? "data/example.jsonl");
  const args = [
    join(PROJECT_ROOT, "bin/gym.js"), "eval", "reverify",
    "-c", join(PROJECT_ROOT, "resources_servers", run.environment, "configs", run.config),
    "--rollouts", join(folder, run.rollouts),
    "--inputs", inputs,
    "--verify-only", "--overwrite", "--json",
    "-o", join(outputDir, `${run.environment}-${run.config.replace(/\.yaml$/, "")}.jsonl`),
  ];
  const child = spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, encoding: "utf8", timeout: 120_000 });
  try {
    return JSON.parse(child.stdout);
  } catch {
    return `gym eval reverify exited ${child.status}: ${child.stderr.slice(-800)}`;
  }
}

function main(): number {
  if (!existsSync(SHARED)) {
    process.stdout.write(`NeMo Gym's reference data ${SHARED} is absent (set NEMO_GYM_SHARED_DATA); nothing to compare.\n`);
    return 0;
  }
  const outputDir = mkdtempSync(join(tmpdir(), "gym-parity-"));
  const lines: string[] = [];
  const notes: string[] = [];
  let unexplained = 0;
  for (const run of RUNS) {
    const label = `${run.environment} (${run.rollouts.replace("data/", "")})`;
    const report = reverify(run, outputDir);
    if (typeof report === "string") {
      lines.push(`| ${label} | - | - | - | - | ${report} |`);
      unexplained++;
      continue;
    }
    const { outcomes } = report;
    const equal = outcomes.filter((o) => o.rewardEqual).length;
    const failed = outcomes.filter((o) => o.failure).length;
    const different = outcomes.length - equal - failed;
    const rewards = outcomes.map((o) => `${fmt(o.storedReward)}→${o.failure ? `${o.failure.status ?? o.failure.failureClass}` : fmt(o.newReward)}`).join(", ");
    const reasons: string[] = [];
    for (const o of outcomes) {
      if (o.rewardEqual) continue;
      const known = run.knownRewardDifferences?.[o.lineNumber];
      if (known) reasons.push(`line ${o.lineNumber}: ${known}`);
      else {
        reasons.push(`line ${o.lineNumber}: UNEXPLAINED ${o.failure ? `${o.failure.failureClass}: ${o.failure.message.slice(0, 200)}` : `fields ${o.differentFields.join(", ")}`}`);
        unexplained++;
      }
    }
    const fieldsDiffer = outcomes.some((o) => o.rewardEqual && o.differentFields.length > 0);
    if (fieldsDiffer) {
      if (run.knownFieldDifferences) reasons.push(`fields: ${run.knownFieldDifferences}`);
      else {
        reasons.push(`UNEXPLAINED field differences: ${outcomes.flatMap((o) => (o.rewardEqual ? o.differentFields : [])).join(", ")}`);
        unexplained++;
      }
    }
    lines.push(`| ${label} | ${outcomes.length} | ${equal} | ${different} | ${failed} | ${rewards} |`);
    if (reasons.length > 0) notes.push(`- ${label}: ${reasons.join("; ")}`);
  }
  process.stdout.write(
    [
      "| rollouts | rows | rewards reproduced | rewards different | errors | stored→ours per line |",
      "|---|---|---|---|---|---|",
      ...lines,
      "",
      notes.length > 0 ? "Differences and their reasons:" : "No differences.",
      ...notes,
      "",
      unexplained === 0 ? "Every difference is explained." : `${unexplained} UNEXPLAINED difference(s).`,
      `Re-verified rollouts: ${outputDir}`,
      "",
    ].join("\n"),
  );
  return unexplained === 0 ? 0 : 1;
}

const fmt = (value: unknown) => (typeof value === "number" ? String(value) : JSON.stringify(value));

process.exitCode = main();
