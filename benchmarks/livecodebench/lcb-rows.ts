// What NeMo Gym's LiveCodeBench preparations (benchmarks/livecodebench/prepare_utils.py, livecodebench-x) read
// from livecodebench/code_generation_lite at refs/pr/7: a problem's public and private test cases (public plain
// JSON; private base64(zlib(pickle(JSON text))), as the dataset keeps them) joined into the code_gen server's
// unit_tests, its function name from `metadata`, and the two ways the prompt fields are filled in.
import { inflateSync } from "node:zlib";
import type { Row } from "../../src/rollouts/prepare/define.ts";
import { huggingFace } from "../../src/rollouts/prepare/define.ts";
import { parsePythonJson } from "../../src/rollouts/prepare/readers.ts";
import { unpickleStr } from "../../src/python/pickle.ts";
import { compareStrings } from "../../src/python/str.ts";

export const LCB_REPO = "livecodebench/code_generation_lite";
export const LCB_REVISION = "refs/pr/7";

export const lcbSource = (release: string, tag?: string) => huggingFace(LCB_REPO, "test", { config: release, revision: LCB_REVISION, ...(tag ? { tag } : {}) });

/** `row.get(key, default)`. */
export const get = (row: Row, key: string, fallback: unknown): any => (key in row ? row[key] : fallback);

/** Python's truthiness of the values a row holds. */
const truthy = (value: unknown): boolean =>
  !(value === null || value === undefined || value === false || value === "" || value === 0 || value === 0n || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0));

/** `_decode_test_cases`: JSON text as is, else base64 → zlib → pickle → JSON text. */
export function decodeTestCases(raw: unknown): Row[] {
  if (!truthy(raw)) return [];
  if (typeof raw !== "string") throw new TypeError(`test cases of type ${typeof raw}`);
  try {
    return parsePythonJson(raw) as Row[];
  } catch {
    return parsePythonJson(unpickleStr(inflateSync(Buffer.from(raw, "base64")))) as Row[];
  }
}

export interface UnitTests {
  inputs: unknown[];
  outputs: unknown[];
  fn_name: unknown;
}

export function unitTests(example: Row): UnitTests {
  const pub = decodeTestCases(get(example, "public_test_cases", ""));
  const priv = decodeTestCases(get(example, "private_test_cases", ""));
  const cases = [...pub, ...priv];
  let meta = get(example, "metadata", null);
  if (!truthy(meta)) meta = {};
  if (typeof meta === "string") meta = meta ? parsePythonJson(meta) : {};
  const fnName = (meta as Row).func_name;
  return { inputs: cases.map((tc) => tc.input), outputs: cases.map((tc) => tc.output), fn_name: truthy(fnName) ? fnName : null };
}


const WITH_STARTER = "You will use the following starter code to write the solution to the problem and enclose your code within delimiters.";
const WITHOUT_STARTER =
  "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.";

/** LiveCodeBench's own prompt fields (lcb_runner's code-generation wording). */
export function addPromptFields(row: Row, starterCode: unknown): void {
  if (truthy(starterCode)) {
    row.formatting_message = WITH_STARTER;
    row.starter_code = `\`\`\`python\n${String(starterCode)}\n\`\`\``;
  } else {
    row.formatting_message = WITHOUT_STARTER;
    row.starter_code = "```python\n# YOUR CODE HERE\n```";
  }
}

/** Nemotron Cascade's: the function header when there is one, nothing otherwise. */
export function addCascadePromptFields(row: Row, starterCode: unknown): void {
  row.starter_code = truthy(starterCode) ? `\n\nSolve the problem starting with the provided function header.\n\nFunction header:\n\`\`\`\n${String(starterCode)}\n\`\`\`` : "";
}

/** `prepare_from_hf_raw`: one row per problem of the release whose contest date is in the window. */
export function lcbRow(example: Row, window: { from: string; to: string }, promptFields: (row: Row, starterCode: unknown) => void): Row | null {
  const contestDate = get(example, "contest_date", "");
  if (window.from && compareStrings(contestDate, window.from) < 0) return null;
  if (window.to && compareStrings(contestDate, window.to) >= 0) return null;
  const row: Row = {
    question_content: example.question_content,
    verifier_metadata: { problem_id: get(example, "question_id", ""), difficulty: get(example, "difficulty", "unknown"), unit_tests: unitTests(example) },
  };
  promptFields(row, get(example, "starter_code", ""));
  return row;
}
