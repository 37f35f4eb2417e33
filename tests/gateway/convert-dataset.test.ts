// NeMo Gym rows → Relax rollout rows (spec §5 "Convert"; reference test_convert_dataset.py, tests 77–83).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, linkSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { convertFile, convertRow } from "../../src/gateway/convert-dataset.ts";
import { InputError } from "../../src/rollouts/jsonl.ts";

const tempDirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "convert-dataset-"));
  tempDirs.push(dir);
  return dir;
};
after(() => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

for (const alias of ["same", "relative", "symlink", "hardlink"] as const) {
  test(`convert_file_rejects_same_file_without_truncating[${alias}]`, async () => {
    const dir = tempDir();
    const source = join(dir, "source.jsonl");
    const original = '{"responses_create_params":{"input":[{"role":"user","content":"question"}]}}\n';
    writeFileSync(source, original);
    let destination = source;
    if (alias === "relative") destination = relative(process.cwd(), source);
    if (alias === "symlink") symlinkSync(source, (destination = join(dir, "alias.jsonl")));
    if (alias === "hardlink") linkSync(source, (destination = join(dir, "alias.jsonl")));

    await assert.rejects(convertFile(source, destination), (error: unknown) => error instanceof InputError && /Input and output must refer to different files/.test(error.message));

    assert.equal(readFileSync(source, "utf8"), original);
    assert.equal(readFileSync(destination, "utf8"), original);
  });
}

test("convert_file_writes_separate_output_without_changing_source", async () => {
  const dir = tempDir();
  const source = join(dir, "source.jsonl");
  const row = { responses_create_params: { input: [{ role: "user", content: "question" }] }, id: 7 };
  const original = `${JSON.stringify(row)}\n`;
  writeFileSync(source, original);
  const destination = join(dir, "converted", "output.jsonl");

  assert.equal(await convertFile(source, destination), 1);
  assert.equal(readFileSync(source, "utf8"), original);
  assert.deepEqual(JSON.parse(readFileSync(destination, "utf8")), convertRow(row));
  assert.deepEqual(readdirSync(join(dir, "converted")), ["output.jsonl"]);
});

test("convert file honours a limit, skips blank lines and names the line of a bad row", async () => {
  const dir = tempDir();
  const source = join(dir, "source.jsonl");
  const row = (n: number) => JSON.stringify({ responses_create_params: { input: [] }, id: n });
  writeFileSync(source, `${row(1)}\n\n${row(2)}\n${row(3)}\n`);
  assert.equal(await convertFile(source, join(dir, "two.jsonl"), { limit: 2 }), 2);
  assert.equal(readFileSync(join(dir, "two.jsonl"), "utf8").trim().split("\n").length, 2);

  writeFileSync(source, `${row(1)}\nnot json\n`);
  await assert.rejects(convertFile(source, join(dir, "bad.jsonl")), new RegExp(`Invalid JSON at ${source.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2`));
  writeFileSync(source, `[1]\n`);
  await assert.rejects(convertFile(source, join(dir, "bad.jsonl")), /Expected an object at .*:1/);
  writeFileSync(source, "\n\n");
  await assert.rejects(convertFile(source, join(dir, "bad.jsonl")), /No rows converted/);
  assert.equal(existsSync(join(dir, "bad.jsonl")), false);
  assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith(".tmp")), []);
});

test("convert_row_preserves_task_fields_in_metadata", () => {
  const row = {
    id: 7,
    responses_create_params: {
      input: [{ role: "user", content: "question" }],
      tools: [{ type: "function", name: "lookup" }],
      parallel_tool_calls: false,
      metadata: { task_id: "task-7" },
      temperature: 0.7,
    },
    expected_answer: "answer",
  };
  const before = structuredClone(row);

  assert.deepEqual(convertRow(row), {
    input: [{ role: "user", content: "question" }],
    metadata: {
      id: 7,
      expected_answer: "answer",
      tools: [{ type: "function", name: "lookup" }],
      parallel_tool_calls: false,
      responses_create_params: { metadata: { task_id: "task-7" }, temperature: 0.7 },
    },
  });
  assert.deepEqual(row, before);
});

test("convert_row_formats_gsm8k_benchmark_row", () => {
  const row = { question: "What is 3 + 5?", expected_answer: 8, reference_solution: "Three plus five is eight." };
  assert.deepEqual(convertRow(row), {
    input: [{ role: "user", content: "Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{}.\n\nWhat is 3 + 5?" }],
    metadata: { question: "What is 3 + 5?", expected_answer: "8", reference_solution: "Three plus five is eight." },
  });
  assert.throws(() => convertRow({ question: "no answer" }), /GSM8K question and expected_answer/);
});

test("convert_row_uses_r2e_problem_statement_as_relax_prompt", () => {
  const row = {
    responses_create_params: { input: [], metadata: { instance_dict: '{"instance_id":"task-one"}' }, temperature: 0.7 },
    problem_statement: "Fix the route parser.",
    instance_id: "task-one",
  };
  const converted = convertRow(row);
  assert.deepEqual(converted.input, [{ role: "user", content: "Fix the route parser." }]);
  assert.deepEqual(converted.metadata.responses_create_params, { input: [], metadata: { instance_dict: '{"instance_id":"task-one"}' }, temperature: 0.7 });
});

test("convert_row_preserves_workplace_assistant_verifier_and_tools", () => {
  const row = {
    id: 11,
    responses_create_params: {
      input: [
        { role: "system", content: "Use workplace tools." },
        { role: "user", content: "Reply to the latest email." },
      ],
      tools: [{ type: "function", name: "email_reply_email", parameters: { type: "object" }, strict: false }],
      parallel_tool_calls: false,
      temperature: 1.0,
    },
    ground_truth: [{ name: "email_reply_email", arguments: '{"email_id":"00000057","body":"done"}' }],
    category: "workplace_assistant_email",
    environment_name: "workplace_assistant",
  };
  const converted = convertRow(row);
  assert.deepEqual(converted.input, row.responses_create_params.input);
  assert.deepEqual(converted.metadata, {
    id: 11,
    ground_truth: row.ground_truth,
    category: "workplace_assistant_email",
    environment_name: "workplace_assistant",
    responses_create_params: { temperature: 1.0 },
    tools: row.responses_create_params.tools,
    parallel_tool_calls: false,
  });
});

test("convert_row_preserves_calendar_verifier_state", () => {
  const row = {
    responses_create_params: {
      input: [
        { role: "system", content: "Return the calendar as JSON." },
        { role: "user", content: "Schedule planning at 10am." },
      ],
      tools: [],
    },
    exp_cal_state: { "0": { event_id: 0, duration: 60, constraint: "at 10am", min_time: "10:00", max_time: "16:00" } },
  };
  assert.deepEqual(convertRow(row), { input: row.responses_create_params.input, metadata: { exp_cal_state: row.exp_cal_state, tools: [] } });
});

test("instructions become developer_message and multienv tags stay in metadata", () => {
  const converted = convertRow({
    responses_create_params: { input: [{ role: "user", content: "q" }], instructions: "Be brief." },
    environment: "math_with_judge",
    config: "math-with-judge-v1",
  });
  assert.deepEqual(converted.metadata, { environment: "math_with_judge", config: "math-with-judge-v1", developer_message: "Be brief." });
  assert.equal("developer_message" in convertRow({ responses_create_params: { input: [], instructions: "" } }).metadata, false);
  assert.throws(() => convertRow({ responses_create_params: { input: "text" } }), /input must be a messages array/);
  assert.throws(() => convertRow({ responses_create_params: [] }), /must be an object/);
});
