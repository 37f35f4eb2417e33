// Each benchmark's prepare module turns made-up source rows into exactly the bytes NeMo Gym's prepare.py writes
// for them. The expected lines in convert-cases.json were produced by running NeMo Gym's own prepare() over the
// same rows (scripts/prepare-expected.py, with load_dataset and urlretrieve stubbed to serve them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "../../../src/config/paths.ts";
import { isPrepareModule, type Row, type Source } from "../../../src/rollouts/prepare/define.ts";
import { parsePythonJson, readPandasCsvRows } from "../../../src/rollouts/prepare/readers.ts";
import { convertRows, serializeRows } from "../../../src/rollouts/prepare/run.ts";
import { readTarMembers } from "../../../src/rollouts/prepare/tar.ts";
import { readJsonZipRows, readZipMembers } from "../../../src/rollouts/prepare/zip.ts";

interface CaseSource {
  config?: string;
  split?: string;
  url?: string;
  rows?: Row[];
  /** A tar archive Python's tarfile wrote (read here with readTarMembers, as the runner reads it). */
  tarBase64?: string;
  /**
   * A dataset repo's file (`hf://datasets/<repo>/<path>`): a zip archive Python's zipfile wrote, read with
   * readJsonZipRows; with `url` instead, a repository archive read whole (readZipMembers).
   */
  path?: string;
  zipBase64?: string;
  /** A CSV file's text (read with readPandasCsvRows, as pandas.read_csv(index_col=0) reads it). */
  csv?: string;
  /** A file's text, one `{name, data}` row (a `file` URL source). */
  text?: string;
}
interface Case {
  args?: Row;
  configNames?: string[];
  sources: CaseSource[];
  expected: string[];
}

const cases = parsePythonJson(readFileSync(join(import.meta.dirname, "convert-cases.json"), "utf8")) as Record<string, Case>;

async function rowsFor(c: Case, source: Source, used: Set<CaseSource>): Promise<Row[]> {
  const hit = c.sources.find((s) =>
    source.kind === "url" ? s.url === source.url : source.kind === "huggingface-file" ? s.path === source.path : s.split === source.split && s.config === source.config,
  );
  if (hit) used.add(hit);
  if (hit?.text !== undefined) return [{ name: hit.url!.split("/").pop(), data: Buffer.from(hit.text, "utf8") }];
  if (hit?.csv !== undefined) {
    const path = join(mkdtempSync(join(tmpdir(), "gym-convert-")), "data.csv");
    writeFileSync(path, hit.csv);
    return readPandasCsvRows(path, hit.url!);
  }
  if (hit?.zipBase64) {
    const path = join(mkdtempSync(join(tmpdir(), "gym-convert-")), "archive.zip");
    writeFileSync(path, Buffer.from(hit.zipBase64, "base64"));
    // A URL's zip is one row of the whole archive (the runner reads it so); a dataset repo's zip is its JSON rows.
    return hit.url !== undefined ? [{ name: "archive.zip", members: await readZipMembers(path) }] : readJsonZipRows(path, hit.path!);
  }
  if (hit?.tarBase64) {
    const path = join(mkdtempSync(join(tmpdir(), "gym-convert-")), "data.tar");
    writeFileSync(path, Buffer.from(hit.tarBase64, "base64"));
    return readTarMembers(path).map((member) => ({ ...member }));
  }
  return hit?.rows ?? [];
}

/** A case's module: benchmarks/<name>/prepare.ts, or benchmarks/<name>.ts for a name with a slash (livecodebench/v6_2408_2505/prepare_cascade). */
const modulePath = (name: string) => join(PROJECT_ROOT, "benchmarks", name.includes("/") ? `${name}.ts` : join(name, "prepare.ts"));

/** What refuses to prepare (gym eval prepare says why in one line) instead of converting rows. */
const REFUSING = ["birdbench", "bunsenbench_chemistry_mcq", "ioi", "ruler/prepare_utils", "ruler2", "spider2_lite"];
// Refused once run, before any download (their tokenizer is not ported): tests/cli/eval-prepare checks the one line.
const REFUSING_WHEN_RUN = ["graphwalks/prepare_n3_1m", "longbench_v2/prepare_n3_1m", "longcodebench/prepare_n3_1m", "mrcr/prepare_n3_128k", "mrcr/prepare_n3_1m"];

for (const [name, c] of Object.entries(cases)) {
  test(`${name}: made-up source rows become NeMo Gym's rows, byte for byte`, async () => {
    const imported = (await import(pathToFileURL(modulePath(name)).href)) as { default: unknown };
    const module = imported.default;
    assert.ok(isPrepareModule(module));
    const args = { ...(module.defaults ?? {}), ...(c.args ?? {}) };
    const used = new Set<CaseSource>();
    // A file the module reads before choosing its downloads: the case's text for that URL.
    const file = async (source: Source) => (await rowsFor(c, source, used))[0]!.data as Buffer;
    const sources = typeof module.sources === "function" ? await module.sources(args, { configNames: async () => c.configNames ?? [], file }) : module.sources;
    const inputs = await Promise.all(sources.map(async (source) => ({ source, rows: await rowsFor(c, source, used) })));
    assert.equal(used.size, c.sources.length, `${name}: every source of the case is one the module reads`);
    const lines = serializeRows(module, await convertRows(module, args, inputs)).split("\n").slice(0, -1);
    assert.deepEqual(lines, c.expected);
  });
}

test("the cases cover every prepare module shipped under benchmarks/ but those that refuse, which say why in one line", async () => {
  const { readdirSync } = await import("node:fs");
  const modules = (readdirSync(join(PROJECT_ROOT, "benchmarks"), { recursive: true }) as string[])
    .filter((path) => /(^|\/)prepare(_\w+)?\.ts$/.test(path))
    .map((path) => path.replace(/\.ts$/, "").replace(/^([^/]+)\/prepare$/, "$1"))
    .sort();
  const refusing: string[] = [];
  for (const name of modules) {
    const module = ((await import(pathToFileURL(modulePath(name)).href)) as { default: unknown }).default;
    assert.ok(isPrepareModule(module), name);
    if (module.refuse !== undefined) {
      refusing.push(name);
      assert.match(module.refuse, /^[^\n]{20,400}$/, `${name}: one line`);
    }
  }
  assert.deepEqual(refusing, REFUSING);
  assert.deepEqual(modules.filter((name) => !(name in cases) && !REFUSING.includes(name) && !REFUSING_WHEN_RUN.includes(name)), []);
});

test("mmlu_prox reads lm-evaluation-harness's lang_libs.py first, pinned to NeMo Gym's commit and sha256 (a download with another digest is refused)", async () => {
  const { default: module, LANG_LIBS_SHA256, LANG_LIBS_URL } = await import(pathToFileURL(join(PROJECT_ROOT, "benchmarks", "mmlu_prox", "prepare.ts")).href);
  assert.equal(LANG_LIBS_SHA256, "582a892b4e8419c16384552b369d7ba828418c57768ccdd82d61172116b3da55");
  const sources: Source[] = await module.sources({ languages: ["en"] }, { configNames: async () => [] });
  assert.deepEqual({ ...sources[0] }, { kind: "url", url: LANG_LIBS_URL, format: "file", tag: "lang_libs", sha256: LANG_LIBS_SHA256 });
  assert.match(LANG_LIBS_URL, /\/EleutherAI\/lm-evaluation-harness\/f4d4b3de3ee6741a7151a9fe74945ee515262f4c\/lm_eval\/tasks\/mmlu_prox\/lang_libs\.py$/);
  await assert.rejects(convertRows(module, { languages: ["en"] }, [{ source: sources[0]!, rows: [{ name: "lang_libs.py", data: Buffer.from("LANG_LIBS = load()\nLANG_SUBJECTS = {}\n") }] }]), /mmlu_prox: lm-evaluation-harness's lang_libs\.py .*: LANG_LIBS \(line 1\) is not a plain literal: .*; its templates are read as data, never run as Python/);
});

test("iheval: a tool task's canned call and result stay Responses items beside a flat tool (NeMo Gym's benchmark step raises KeyError on them)", async () => {
  const { default: module } = await import(pathToFileURL(join(PROJECT_ROOT, "benchmarks", "iheval", "prepare.ts")).href);
  const tasks = ["task-execution/verb-extract", "task-execution/translation", "task-execution/lang-detect", "safety/system-prompt-extract", "safety/user-prompt-hijack", "tool-use/slack-user", "tool-use/get-webpage", "rule-following/single-turn", "rule-following/multi-turn"];
  const example = (task: string) =>
    task === "tool-use/get-webpage"
      ? { id: 9, system: "s", instruction: "Summarise the page", answer: ["a"], tool: { definition: { name: "get_webpage", description: "Fetch a page", parameters: { url: { type: "string" } } }, call: { id: "call_1", name: "get_webpage", arguments: { url: "https://é.example" } }, return: { id: "call_1", content: "<html>hi</html>" } } }
      : { id: 1, instruction: "i", answer: "a" };
  const members = tasks.map((task) => ({ name: `IHEval-main/benchmark/${task}/aligned/input_data.json`, data: Buffer.from(JSON.stringify([example(task)])) }));
  const sources = module.sources as Source[];
  const [line] = serializeRows(module, await convertRows(module, {}, [{ source: sources[0]!, rows: [{ name: "main.zip", members }] }])).split("\n").filter((l) => l.includes("get-webpage"));
  const row = JSON.parse(line!);
  assert.deepEqual(row.responses_create_params, {
    input: [
      { role: "system", content: "s" },
      { role: "user", content: "Summarise the page" },
      { type: "function_call", call_id: "call_1", name: "get_webpage", arguments: '{"url": "https://\\u00e9.example"}' },
      { type: "function_call_output", call_id: "call_1", output: "<html>hi</html>" },
    ],
    tools: [{ type: "function", name: "get_webpage", description: "Fetch a page", parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] }, strict: null }],
  });
  assert.equal(row.id, "9");
});
