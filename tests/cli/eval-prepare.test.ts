// `gym eval prepare` as a real child process against a loopback Hugging Face Hub (src/testing/fake-hf-hub.ts):
// NeMo Gym's rows and the checksum record are written, an interrupted download resumes with a Range, a second
// run fetches nothing, a gated dataset is one line naming HF_TOKEN, a missing prepare module is one line naming it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { parquetOf, runGym, startFakeHub, type FakeHub } from "../../src/testing/index.ts";

const REPO = "HuggingFaceH4/aime_2024";
const JSONL = join("benchmarks", "aime24", "data", "aime24_benchmark.jsonl");
// Random text does not compress, so the Parquet file is large enough to be cut midway.
const problems = Array.from({ length: 30 }, (_, i) => `Problem ${i + 1} é: ${randomBytes(3000).toString("base64")}`);
const answers = Array.from({ length: 30 }, (_, i) => String(100 + i).padStart(3, "0"));
const PARQUET = parquetOf({ ID: problems.map((_, i) => `2024-I-${i + 1}`), problem: problems, solution: problems.map(() => "s"), answer: answers });
const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

const PROMPT = "benchmarks/prompts/generic/math.yaml";

/**
 * A folder with its own benchmarks/aime24/config.yaml (NeMo Gym's), so the rows are written there, not in the
 * project; with a prompt of the test's own at the path the config names (unless `withPrompt` is false), and NeMo
 * Gym's repository out of reach, so no test fetches from outside.
 */
function workspace(withPrompt = true): { root: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), "gym-prepare-"));
  mkdirSync(join(root, "benchmarks", "aime24"), { recursive: true });
  cpSync(join(PROJECT_ROOT, "benchmarks", "aime24", "config.yaml"), join(root, "benchmarks", "aime24", "config.yaml"));
  if (withPrompt) {
    mkdirSync(join(root, "benchmarks", "prompts", "generic"), { recursive: true });
    writeFileSync(join(root, PROMPT), "user: '{question}'\n");
  }
  return {
    root,
    env: { ...process.env, NEMO_GYM_CACHE_DIR: join(root, "cache"), HF_TOKEN: "", HUGGING_FACE_HUB_TOKEN: "", NEMO_GYM_EXTRA_ROOTS: "", NEMO_GYM_RAW_BASE_URL: "http://127.0.0.1:9/unreachable" },
  };
}

const gym = (args: string[], root: string, env: NodeJS.ProcessEnv, hub: FakeHub) => runGym(["eval", "prepare", ...args], { cwd: root, env: { ...env, HF_ENDPOINT: hub.url } });

test("gym eval prepare --benchmark aime24: NeMo Gym's rows and a checksum record; a cut download resumes with a Range; a second run fetches nothing", async (t) => {
  // The Hub's resolve URL redirects to the CDN path of the file's sha256; its first download is cut midway.
  const cdn = `/cdn/${sha256(PARQUET)}`;
  const cutting = await startFakeHub({ datasets: [{ repo: REPO, files: { "default/train/0000.parquet": PARQUET } }], cutFirstDownloadOf: [cdn] });
  t.after(() => cutting.close());
  const { root, env } = workspace();

  const first = await gym(["--benchmark", "aime24"], root, env, cutting);
  assert.equal(first.code, 0, first.output);
  const lines = readFileSync(join(root, JSONL), "utf8").split("\n").slice(0, -1);
  assert.equal(lines.length, 30);
  assert.equal(lines[0], `{"question": ${JSON.stringify(problems[0]).replace("é", "\\u00e9")}, "expected_answer": "100"}`);
  assert.deepEqual(JSON.parse(lines[29]!), { question: problems[29], expected_answer: "129" });

  const downloads = cutting.requests.filter((r) => r.path === cdn);
  assert.equal(downloads.length, 2, "the cut download and its resumption");
  assert.equal(downloads[0]!.range, undefined);
  const resumedAt = Number(/^bytes=(\d+)-$/.exec(downloads[1]!.range ?? "")?.[1]);
  assert.ok(resumedAt > 0 && resumedAt < PARQUET.length, `resumed with ${downloads[1]!.range}`);
  assert.match(first.stderr, /downloaded HuggingFaceH4\/aime_2024\/default\/train\/0000\.parquet \(/);

  const record = JSON.parse(readFileSync(join(root, `${JSONL}.prepare.json`), "utf8"));
  assert.equal(record.benchmark, "aime24");
  assert.equal(record.prepare_script, "benchmarks/aime24/prepare.py");
  assert.equal(record.module, "benchmarks/aime24/prepare.ts");
  assert.deepEqual(record.output, { path: "benchmarks/aime24/data/aime24_benchmark.jsonl", rows: 30, bytes: readFileSync(join(root, JSONL)).length, sha256: sha256(readFileSync(join(root, JSONL))) });
  assert.equal(record.sources.length, 1);
  const [source] = record.sources;
  assert.equal(source.repo, REPO);
  assert.equal(source.revision, "refs/convert/parquet");
  assert.match(source.commit, /^[0-9a-f]{40}$/);
  assert.equal(source.rows, 30);
  assert.deepEqual(source.files, [{ url: `${cutting.url}/datasets/${REPO}/resolve/${source.commit}/default/train/0000.parquet`, bytes: PARQUET.length, sha256: sha256(PARQUET) }]);

  const before = cutting.requests.length;
  const second = await gym(["--benchmark", "aime24"], root, env, cutting);
  assert.equal(second.code, 0, second.output);
  assert.match(second.stdout, /aime24: already prepared, nothing fetched .*30 rows/);
  assert.equal(cutting.requests.length, before, "no request at all");

  // --force prepares again: the Hub is asked, the file (pinned by its commit) comes from the cache.
  const forced = await gym(["--benchmark", "aime24", "--force"], root, env, cutting);
  assert.equal(forced.code, 0, forced.output);
  assert.match(forced.stdout, /aime24: wrote 30 rows/);
  assert.match(forced.stderr, /cached HuggingFaceH4\/aime_2024/);
  assert.equal(cutting.requests.filter((r) => r.path === cdn).length, 2);

  // Rows edited by hand no longer match the record: prepared again.
  writeFileSync(join(root, JSONL), "{}\n");
  const edited = await gym(["--config", "benchmarks/aime24/config.yaml"], root, env, cutting);
  assert.equal(edited.code, 0, edited.output);
  assert.equal(readFileSync(join(root, JSONL), "utf8").split("\n").length, 31);
});

test("a gated dataset without HF_TOKEN is one line naming HF_TOKEN (exit 2); with the token it is read", async (t) => {
  const hub = await startFakeHub({ datasets: [{ repo: REPO, gatedToken: "hf_secret", files: { "default/train/0000.parquet": PARQUET } }] });
  t.after(() => hub.close());
  const { root, env } = workspace();

  const refused = await gym(["--benchmark", "aime24"], root, env, hub);
  assert.equal(refused.code, 2, refused.output);
  assert.equal(refused.stderr.trim().split("\n").length, 1, refused.stderr);
  assert.match(refused.stderr, /HuggingFaceH4\/aime_2024 is gated or private \(HTTP 401\): set HF_TOKEN/);
  assert.doesNotMatch(refused.stderr, /\n\s+at /);
  assert.equal(existsSync(join(root, JSONL)), false);

  const allowed = await gym(["--benchmark", "aime24"], root, { ...env, HF_TOKEN: "hf_secret" }, hub);
  assert.equal(allowed.code, 0, allowed.output);
  assert.ok(hub.requests.filter((r) => r.authorization === "Bearer hf_secret").length >= 4, "the API calls and the download carry the token");

  // A gated (not private) dataset: its listing is public, its files are not.
  const filesOnly = await startFakeHub({ datasets: [{ repo: REPO, gatedToken: "hf_secret", gate: "files", files: { "default/train/0000.parquet": PARQUET } }] });
  t.after(() => filesOnly.close());
  const other = workspace();
  const refusedFile = await gym(["--benchmark", "aime24"], other.root, other.env, filesOnly);
  assert.equal(refusedFile.code, 2, refusedFile.output);
  assert.equal(refusedFile.stderr.trim().split("\n").length, 1, refusedFile.stderr);
  assert.match(refusedFile.stderr, /aime24: .*\/resolve\/.*: HTTP 401 \(a gated or private file: set HF_TOKEN/);
});

test("a benchmark of the user's own with a URL source (another search root): fetched, resumed, converted; a missing prepare module is one line", async (t) => {
  const raw = Buffer.from(Array.from({ length: 200 }, (_, i) => `{"question": "q${i} ${randomBytes(200).toString("hex")}", "answer": ${i}}\n`).join(""));
  const hub = await startFakeHub({ files: { "/owner/repo/main/test.jsonl": raw }, cutFirstDownloadOf: ["/owner/repo/main/test.jsonl"] });
  t.after(() => hub.close());
  const { root, env } = workspace();
  const extra = mkdtempSync(join(tmpdir(), "gym-prepare-extra-"));
  mkdirSync(join(extra, "benchmarks", "mine"), { recursive: true });
  writeFileSync(join(extra, "package.json"), '{ "type": "module" }\n');
  const config = readFileSync(join(PROJECT_ROOT, "benchmarks", "aime24", "config.yaml"), "utf8").replaceAll("aime24", "mine");
  writeFileSync(join(extra, "benchmarks", "mine", "config.yaml"), config);
  writeFileSync(
    join(extra, "benchmarks", "mine", "prepare.ts"),
    `import { definePrepare, url } from ${JSON.stringify(join(PROJECT_ROOT, "src", "rollouts", "prepare", "define.ts"))};\n` +
      `export default definePrepare({ sources: () => [url(process.env.HF_ENDPOINT + "/owner/repo/main/test.jsonl")], convert: (row) => ({ question: row.question, expected_answer: row.answer }) });\n`,
  );

  const result = await gym(["--benchmark", "mine", "--search-dir", extra], root, env, hub);
  assert.equal(result.code, 0, result.output);
  const written = readFileSync(join(extra, "benchmarks", "mine", "data", "mine_benchmark.jsonl"), "utf8").split("\n");
  assert.equal(written.length, 201);
  assert.match(written[7]!, /^\{"question": "q7 [0-9a-f]+", "expected_answer": 7\}$/);
  const ranges = hub.requests.filter((r) => r.path === "/owner/repo/main/test.jsonl").map((r) => r.range);
  assert.equal(ranges.length, 2);
  assert.match(ranges[1] ?? "", /^bytes=\d+-$/);
  const record = JSON.parse(readFileSync(join(extra, "benchmarks", "mine", "data", "mine_benchmark.jsonl.prepare.json"), "utf8"));
  assert.deepEqual(record.sources[0].files, [{ url: `${hub.url}/owner/repo/main/test.jsonl`, bytes: raw.length, sha256: sha256(raw) }]);

  writeFileSync(join(extra, "benchmarks", "mine", "config.yaml"), config.replace("benchmarks/mine/prepare.py", "benchmarks/mine/prepare_other.py"));
  const missing = await gym(["--benchmark", "mine", "--search-dir", extra, "--force"], root, env, hub);
  assert.equal(missing.code, 2, missing.output);
  assert.equal(missing.stderr.trim().split("\n").length, 1, missing.stderr);
  assert.match(missing.stderr, /benchmark mine: no prepare module benchmarks\/mine\/prepare_other\.ts \(the port of its prepare_script benchmarks\/mine\/prepare_other\.py\)/);

  const unknown = await gym(["--benchmark", "nope"], root, env, hub);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no benchmark 'nope': benchmarks\/nope\/config\.yaml is under none of the search roots/);
});

test("a benchmark's prompt_config that is NeMo Gym's and not here is fetched at the pinned commit and checked; a wrong digest is refused naming the file", async (t) => {
  // The project keeps no copy of NeMo Gym's prompt text, so the test writes its own and pins its digest.
  const prompt = Buffer.from("user: 'Solve: {question}'\n");
  const raw = await startFakeHub({ files: { [`/gym/${PROMPT}`]: prompt } });
  const hub = await startFakeHub({ datasets: [{ repo: REPO, files: { "default/train/0000.parquet": PARQUET } }] });
  t.after(() => Promise.all([raw.close(), hub.close()]));
  const { root, env } = workspace(false);
  const pin = (digest: string) => {
    writeFileSync(join(root, "pins.yaml"), `nemo_gym_raw_base_url: ${raw.url}/gym\nnemo_gym_prompt_sha256:\n  ${PROMPT}: "${digest}"\n`);
    return ["--benchmark", "aime24", "--config", "pins.yaml"];
  };
  const wrong = await gym(pin("0".repeat(64)), root, env, hub);
  assert.equal(wrong.code, 2, wrong.output);
  assert.equal(wrong.stderr.trim().split("\n").length, 1, wrong.stderr);
  assert.match(wrong.stderr, new RegExp(`aime24: prompt_config ${PROMPT}: sha256 ${sha256(prompt)} is not the expected 0{64}: .*/gym/${PROMPT} \\(not kept\\)`));
  assert.equal(existsSync(join(root, PROMPT)), false, "a download with another digest is not kept");

  if (existsSync(join(PROJECT_ROOT, PROMPT))) return t.skip(`${PROMPT} is in the project root (fetched by an earlier prepare): it would be used instead`);
  const fetched = await gym(pin(sha256(prompt)), root, env, hub);
  assert.equal(fetched.code, 0, fetched.output);
  assert.match(fetched.stdout, new RegExp(`aime24: fetched its prompt_config ${PROMPT} from ${raw.url}/gym/${PROMPT} \\(${prompt.length} bytes`));
  assert.deepEqual(readFileSync(join(root, PROMPT)), prompt);
  assert.equal(raw.requests.filter((r) => r.path === `/gym/${PROMPT}`).length, 2);

  // Already here: used as it is, nothing fetched; a prompt of the user's is theirs, not checked.
  writeFileSync(join(root, PROMPT), "user: 'mine {question}'\n");
  const again = await gym(pin(sha256(prompt)), root, env, hub);
  assert.equal(again.code, 0, again.output);
  assert.equal(raw.requests.length, 2);
  assert.doesNotMatch(again.stdout, /fetched its prompt_config/);
});

test("gym eval run of a benchmark whose NeMo Gym prompt is not here yet: one line saying to run gym eval prepare first", async (t) => {
  if (existsSync(join(PROJECT_ROOT, PROMPT))) return t.skip(`${PROMPT} is in the project root (fetched by an earlier prepare): it would be found`);
  const { root, env } = workspace(false);
  mkdirSync(join(root, "benchmarks", "aime24", "data"), { recursive: true });
  writeFileSync(join(root, JSONL), '{"question": "1+1?", "expected_answer": "2"}\n');
  const config = ["--config", "benchmarks/aime24/config.yaml", "--config", join(PROJECT_ROOT, "responses_api_models", "scripted_model", "configs", "scripted_model.yaml")];
  const run = await runGym(["eval", "run", ...config, "--split", "benchmark", "--output", "out.jsonl"], { cwd: root, env });
  assert.equal(run.code, 2, run.output);
  assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  assert.match(run.stderr, new RegExp(`benchmark aime24's prompt_config ${PROMPT} is not here \\(NeMo Gym's template, fetched at its pinned commit\\): run \`gym eval prepare --benchmark aime24\` first`));

  const flag = await runGym(["eval", "run", "--no-serve", "--input", JSONL, "--prompt-config", PROMPT, "--output", "out.jsonl"], { cwd: root, env });
  assert.equal(flag.code, 2, flag.output);
  assert.match(flag.stderr, /prompt_config benchmarks\/prompts\/generic\/math\.yaml is not here .*: run `gym eval prepare --benchmark <a benchmark that uses it>` first/);
});

test("gym eval prepare --benchmark longcodebench: the zip of the dataset repo's main branch, checked by its sha256, read into NeMo Gym's rows; the n3_1m variant is one line", async (t) => {
  const cases = JSON.parse(readFileSync(join(PROJECT_ROOT, "tests", "rollouts", "prepare", "convert-cases.json"), "utf8"));
  const zip = Buffer.from(cases.longcodebench.sources[0].zipBase64, "base64");
  const hub = await startFakeHub({ datasets: [{ repo: "Steefano/LCB", files: {}, main: { files: { "LongCodeQA.zip": zip } } }] });
  t.after(() => hub.close());
  const { root, env } = workspace();
  mkdirSync(join(root, "benchmarks", "longcodebench"), { recursive: true });
  for (const file of ["config.yaml", "config_n3_1m.yaml"]) cpSync(join(PROJECT_ROOT, "benchmarks", "longcodebench", file), join(root, "benchmarks", "longcodebench", file));

  const result = await gym(["--benchmark", "longcodebench", `+prepare_script_args.max_context_tokens=${cases.longcodebench.args.max_context_tokens}`], root, env, hub);
  assert.equal(result.code, 0, result.output);
  const jsonl = join(root, "benchmarks", "longcodebench", "data", "longcodebench_benchmark.jsonl");
  assert.deepEqual(readFileSync(jsonl, "utf8").split("\n").slice(0, -1), cases.longcodebench.expected);
  const record = JSON.parse(readFileSync(`${jsonl}.prepare.json`, "utf8"));
  assert.equal(record.sources[0].kind, "huggingface-file");
  assert.equal(record.sources[0].revision, "main");
  assert.deepEqual(record.sources[0].files, [{ url: `${hub.url}/datasets/Steefano/LCB/resolve/${record.sources[0].commit}/LongCodeQA.zip`, bytes: zip.length, sha256: sha256(zip) }]);

  const before = hub.requests.length;
  const n3 = await gym(["--benchmark", "longcodebench/config_n3_1m"], root, env, hub);
  assert.equal(n3.code, 2, n3.output);
  assert.equal(n3.stderr.trim().split("\n").length, 1, n3.stderr);
  assert.match(n3.stderr, /longcodebench: tokenizer_name "nvidia\/NVIDIA-Nemotron-3-Super-120B-A12B-BF16" is not a tiktoken encoding \(o200k_base, .*\); counting tokens with a Hugging Face tokenizer .* is not ported/);
  assert.equal(hub.requests.length, before, "refused before any request");
});
