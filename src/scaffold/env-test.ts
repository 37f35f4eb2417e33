// `gym env test NAME`: whether an environment folder can be trusted before any model touches it. Four checks,
// each naming the tool, field or file:line that fails:
//   dataset — data/example.jsonl is valid and its tools match GET /tools by the kit's tool-drift rule (names and
//             argument shapes; src/testing/tool-drift.ts): prose-only differences are notes;
//   server  — configs/NAME.yaml starts the resources server here, and /seed_session answers 200 with the cookie;
//   tools   — every tool accepts an input derived from its schema and rejects wrong types / missing fields (422);
//   verify  — data/verifier_cases.jsonl, replayed, gets the rewards (or, for a `refused` case, the status) it expects.
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { HttpResponse } from "../client/index.ts";
import { environmentFromDefinition, formatProblem, validateDatasetFile, type EnvironmentSchema } from "../rollouts/dataset-validate.ts";
import { InputError, type Row } from "../rollouts/jsonl.ts";
import { toolJsonSchema, type FunctionToolDefinition } from "../server/index.ts";
import { exampleValue, requiredFields, wrongTypeValue, type JsonSchema } from "./env-test/schema-values.ts";
import { resourcesSpecOf, startEnvironment, type RunningEnvironment } from "./env-test/start.ts";
import { compareTools, describeToolDifference } from "../testing/tool-drift.ts";
import { CASE_KINDS, readVerifierCases, runVerifierCases, VERIFIER_CASES_CONTRACT } from "../testing/verifier-cases.ts";
import { pathSegment } from "../client/path-segment.ts";

export type CheckId = "dataset" | "server" | "tools" | "verify";

export interface CheckResult {
  id: CheckId;
  ok: boolean;
  /** One line: what passed, or the first problem. */
  summary: string;
  /** Every problem, each naming the tool, field or file:line. */
  problems: string[];
  /** Observations that do not fail the check. */
  notes: string[];
}

export interface EnvironmentCheckOptions {
  /** The folder holding `resources_servers/`. */
  rootDir: string;
  name: string;
  /** Deadline of each HTTP call to the environment. */
  callDeadlineMs?: number;
}

const passed = (id: CheckId, summary: string, notes: string[] = []): CheckResult => ({ id, ok: true, summary, problems: [], notes });
const failed = (id: CheckId, problems: string[], notes: string[] = []): CheckResult => ({ id, ok: false, summary: problems[0] ?? "failed", problems, notes });
const NOT_RUN = "not run: the server did not start (see the server check)";

const clip = (text: string, length = 200) => (text.length > length ? `${text.slice(0, length - 3)}...` : text);
const readRows = (text: string) =>
  text.split("\n").flatMap((line, i) => {
    try {
      const row = JSON.parse(line);
      return row !== null && typeof row === "object" && !Array.isArray(row) ? [{ lineNumber: i + 1, row: row as Row }] : [];
    } catch {
      return [];
    }
  });

export async function runEnvironmentChecks(options: EnvironmentCheckOptions): Promise<CheckResult[]> {
  const rootDir = resolve(options.rootDir);
  const { name } = options;
  const callDeadlineMs = options.callDeadlineMs ?? 30_000;
  const envDir = join(rootDir, "resources_servers", name);
  if (!existsSync(envDir)) throw new InputError(`no environment folder resources_servers/${name} under ${rootDir}`);
  const shown = (path: string) => relative(rootDir, path);
  const datasetFile = join(envDir, "data", "example.jsonl");
  const casesFile = join(envDir, "data", "verifier_cases.jsonl");

  const start = await startEnvironment({ rootDir, name, envDir, callDeadlineMs });
  const running = start.started ? start.environment : undefined;
  try {
    const served = running ? await servedTools(running).catch((error: Error) => `failed: ${error.message}`) : undefined;
    const rows = existsSync(datasetFile) ? readRows(readFileSync(datasetFile, "utf8")) : [];
    const firstRow = rows[0]?.row;
    const definition = start.started ? start.environment.definition : start.definition;
    return [
      await guarded("dataset", () => datasetCheck(datasetFile, shown(datasetFile), rows, definition, served)),
      start.started ? await guarded("server", () => serverCheck(start.environment, start.configFile, firstRow, start.notes)) : failed("server", [start.problem]),
      running && Array.isArray(served) ? await guarded("tools", () => toolsCheck(running, served, firstRow)) : failed("tools", [running ? `GET /tools ${served}` : NOT_RUN]),
      running ? await guarded("verify", () => verifyCheck(running, casesFile, shown(casesFile), callDeadlineMs)) : failed("verify", [NOT_RUN]),
    ];
  } finally {
    await running?.close();
  }
}

/** A check that threw (a tool that hangs past the deadline, a connection reset) fails with the reason. */
async function guarded(id: CheckId, run: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await run();
  } catch (error) {
    return failed(id, [`the check stopped: ${(error as Error)?.message ?? String(error)}`]);
  }
}

/** GET /tools as served, or why it could not be read. */
async function servedTools(running: RunningEnvironment): Promise<FunctionToolDefinition[] | string> {
  const answer = await running.client.get(running.instanceName, "/tools");
  if (!answer.ok) return `answered ${answer.status}: ${clip(answer.text)}`;
  const tools = answer.json();
  return Array.isArray(tools) ? (tools as FunctionToolDefinition[]) : `answered ${clip(answer.text)}, not a list of tools`;
}

// ---- 1. dataset ----

async function datasetCheck(file: string, shownFile: string, rows: { lineNumber: number; row: Row }[], definition: RunningEnvironment["definition"] | undefined, served: FunctionToolDefinition[] | string | undefined): Promise<CheckResult> {
  if (!existsSync(file)) return failed("dataset", [`${shownFile} is missing: write example rows, one JSON object per line with responses_create_params (input, tools) and the fields /seed_session and /verify read`]);
  // Fields and protocol through `gym dataset validate`; tools below, against what the running server serves.
  const spec = resourcesSpecOf(definition);
  const environment: EnvironmentSchema | undefined = spec ? { ...environmentFromDefinition(spec), tools: undefined } : undefined;
  const problems = (await validateDatasetFile(file, () => environment)).map((p) => formatProblem({ ...p, file: shownFile }));
  if (rows.length === 0 && problems.length === 0) problems.push(`${shownFile}: has no rows`);
  // A server that serves no tools verifies calls it never executes (argument comparison, xlam): the tools in
  // its rows are the task's, simulated, and there is nothing served for them to drift from.
  const toolsSimulated = Array.isArray(served) && served.length === 0;
  // Allowed differences (prose, strict, a tool a row leaves out) are notes, once per wording with the rows that have it.
  const allowed = new Map<string, number[]>();
  if (Array.isArray(served) && !toolsSimulated) {
    for (const { lineNumber, row } of rows) {
      const params = row.responses_create_params as Row | undefined;
      for (const difference of compareTools(params?.tools, served)) {
        const why = difference.kind === "not_offered" ? "allowed: every call the row's model can make still has a route" : "allowed: only prose or strict differ, which the server never reads";
        const message = `${difference.path}: ${describeToolDifference(difference, served)}${difference.drift ? "" : ` (${why})`}`;
        if (difference.drift) problems.push(`${shownFile}:${lineNumber}: ${message}`);
        else allowed.set(message, [...(allowed.get(message) ?? []), lineNumber]);
      }
    }
  } else if (!toolsSimulated) {
    problems.push(`${shownFile}: tools not compared with GET /tools: ${served === undefined ? "the server did not start (see the server check)" : `GET /tools ${served}`}`);
  }
  const notes = [...allowed].map(([message, lines]) => `${shownFile}:${lines[0]}${lines.length > 1 ? ` (and ${lines.length - 1} more row(s))` : ""}: ${message}`);
  if (problems.length > 0) return failed("dataset", problems, notes);
  if (toolsSimulated) return passed("dataset", `${shownFile}: ${rows.length} rows valid; GET /tools serves none (the rows' tools are simulated, not executed)`);
  const toolNames = (served as FunctionToolDefinition[]).map((t) => t.name);
  return passed("dataset", `${shownFile}: ${rows.length} rows valid; their tools match GET /tools (${toolNames.join(", ")})`, notes);
}

// ---- 2. server ----

async function serverCheck(running: RunningEnvironment, configFile: string, firstRow: Row | undefined, startNotes: string[]): Promise<CheckResult> {
  const notes = [...startNotes, ...(firstRow ? [] : ["no example row to seed with: /seed_session was posted {}"])];
  const seeded = await running.client.post(running.instanceName, "/seed_session", { json: firstRow ?? {} });
  const problems: string[] = [];
  if (seeded.status !== 200) problems.push(`/seed_session with the first example row answered ${seeded.status}: ${clip(seeded.text)}`);
  if (seeded.cookies[running.sessionCookieName] === undefined) {
    problems.push(`/seed_session set no session cookie '${running.sessionCookieName}' (got: ${Object.keys(seeded.cookies).join(", ") || "none"})`);
  }
  if (problems.length > 0) return failed("server", problems, notes);
  return passed("server", `${configFile}: instance '${running.instanceName}' started; /seed_session answered 200 with cookie ${running.sessionCookieName}`, notes);
}

// ---- 3. tools ----

/** Whether a 422 body names `field` (FastAPI's detail[].loc, else anywhere in the text). */
function namesField(answer: HttpResponse, field: string): boolean {
  try {
    const detail = (answer.json() as { detail?: unknown }).detail;
    if (Array.isArray(detail)) return detail.some((d) => Array.isArray(d?.loc) && d.loc.includes(field));
  } catch {
    // not JSON: fall through to the text
  }
  return answer.text.includes(field);
}

async function toolsCheck(running: RunningEnvironment, served: FunctionToolDefinition[], firstRow: Row | undefined): Promise<CheckResult> {
  const problems: string[] = [];
  const notes: string[] = [];
  const seeded = await running.client.post(running.instanceName, "/seed_session", { json: firstRow ?? {} });
  let cookies = seeded.cookies;
  const call = async (tool: string, args: unknown) => {
    const answer = await running.client.post(running.instanceName, `/${pathSegment(tool)}`, { json: args, cookies });
    cookies = { ...cookies, ...answer.cookies };
    return answer;
  };
  let invalidTried = 0;
  const declared = resourcesSpecOf(running.definition)?.spec.tools ?? {};

  for (const tool of served) {
    const schema = (tool.parameters ?? {}) as JsonSchema;
    // A tool that shows the model a stricter schema (modelSchema) than the one it enforces (input) answers a bad
    // argument itself, in-band, as its NeMo Gym original does (ns_tools: NeMo-Skills' error text, a 200): for the
    // fields its input does not require, a non-422 answer is that design, noted rather than failed.
    const own = declared[tool.name];
    const enforcedSchema = own?.modelSchema ? (toolJsonSchema(own.input) as JsonSchema) : undefined;
    const enforced = enforcedSchema ? new Set(requiredFields(enforcedSchema).map((field) => field.name)) : undefined;
    const inBand = (field: string) => enforced !== undefined && !enforced.has(field);
    // A field its input takes as any value (pydantic's `Any`; circle_click's x / y) answers a wrong type itself too.
    const anyTyped = (field: string) => {
      const property = (enforcedSchema?.properties as Record<string, object> | undefined)?.[field];
      return property !== undefined && Object.keys(property).length === 0;
    };
    const valid = exampleValue(schema) as Row;
    const accepted = await call(tool.name, valid);
    if (accepted.status === 422) problems.push(`tool '${tool.name}': rejected ${JSON.stringify(valid)}, an input its schema allows, with 422: ${clip(accepted.text)}`);
    else if (accepted.status === 404 || accepted.status === 405) problems.push(`tool '${tool.name}': listed by GET /tools, but POST /${tool.name} answered ${accepted.status}`);
    else if (accepted.status >= 500) notes.push(`tool '${tool.name}': the valid input ${JSON.stringify(valid)} answered ${accepted.status}: ${clip(accepted.text, 160)}`);

    const required = requiredFields(schema);
    if (required.length === 0) notes.push(`tool '${tool.name}' has no required field: only a valid input was tried`);
    for (const field of required) {
      const wrong = wrongTypeValue(field.schema, schema);
      if (wrong === undefined) notes.push(`tool '${tool.name}': field '${field.name}' accepts any type: no wrong-type input to try`);
      else {
        const input = { ...valid, [field.name]: wrong.value };
        const answer = await call(tool.name, input);
        invalidTried++;
        if (answer.status !== 422 && (inBand(field.name) || anyTyped(field.name))) notes.push(`tool '${tool.name}': field '${field.name}' given ${wrong.described} answered ${answer.status} in-band (its input schema ${anyTyped(field.name) ? "takes any value" : "does not require it"} for '${field.name}'; only the model's types it): ${clip(answer.text, 120)}`);
        else if (answer.status !== 422) problems.push(`tool '${tool.name}': field '${field.name}' given ${wrong.described} (${JSON.stringify(wrong.value)}; the schema says ${wrong.expected}) answered ${answer.status} ${clip(answer.text, 120)}, expected a 422 naming '${field.name}'`);
        else if (!namesField(answer, field.name)) problems.push(`tool '${tool.name}': field '${field.name}' given ${wrong.described}: the 422 does not name '${field.name}': ${clip(answer.text)}`);
      }
      const { [field.name]: _omitted, ...withoutField } = valid;
      const missing = await call(tool.name, withoutField);
      invalidTried++;
      if (missing.status !== 422 && inBand(field.name)) notes.push(`tool '${tool.name}': required field '${field.name}' left out answered ${missing.status} in-band (its input schema does not require it; only the model's does): ${clip(missing.text, 120)}`);
      else if (missing.status !== 422) problems.push(`tool '${tool.name}': required field '${field.name}' left out answered ${missing.status} ${clip(missing.text, 120)}, expected a 422 naming '${field.name}'`);
      else if (!namesField(missing, field.name)) problems.push(`tool '${tool.name}': required field '${field.name}' left out: the 422 does not name '${field.name}': ${clip(missing.text)}`);
    }
  }
  if (problems.length > 0) return failed("tools", problems, notes);
  const answeredInBand = notes.filter((note) => note.includes(" in-band ")).length;
  const rejected = `${invalidTried - answeredInBand} invalid input(s) rejected with a 422 naming the field${answeredInBand > 0 ? `, ${answeredInBand} answered in-band by design` : ""}`;
  return passed("tools", `${served.length} tool(s) accept a valid input; ${rejected}`, notes);
}

// ---- 4. verify ----

async function verifyCheck(running: RunningEnvironment, file: string, shownFile: string, callDeadlineMs: number): Promise<CheckResult> {
  if (!existsSync(file)) {
    return failed("verify", [`${shownFile} is missing: write ${VERIFIER_CASES_CONTRACT} — at least a full_reward, a zero_reward and a malformed case`]);
  }
  const parsed = readVerifierCases(file, shownFile);
  if (parsed.cases.length === 0 && parsed.problems.length === 0) parsed.problems.push(`${shownFile}: has no cases; write ${VERIFIER_CASES_CONTRACT}`);
  const outcome = await runVerifierCases({ client: running.client, instance: running.instanceName, cases: parsed.cases, shownFile, callDeadlineMs });
  const problems = [...parsed.problems, ...outcome.problems];
  const kinds = new Map(CASE_KINDS.map((kind) => [kind, parsed.cases.filter((c) => c.verifierCase.case === kind).length]));
  const absent = CASE_KINDS.filter((kind) => kinds.get(kind) === 0);
  const notes = [...outcome.notes, ...(absent.length > 0 ? [`${shownFile} has no ${absent.join(" or ")} case`] : [])];
  if (problems.length > 0) return failed("verify", problems, notes);
  const refused = parsed.cases.filter((c) => c.verifierCase.case === "refused").length;
  const counts = [...CASE_KINDS.filter((kind) => kinds.get(kind)! > 0).map((kind) => `${kind} ×${kinds.get(kind)}`), ...(refused > 0 ? [`refused ×${refused}`] : [])];
  return passed("verify", `${shownFile}: ${parsed.cases.length} case(s) (${counts.join(", ")}) get the expected ${refused > 0 ? "reward or status" : "reward"}`, notes);
}

// ---- output ----

/** One line per check (✓/✗ and what passed or first failed), then its further problems and notes, indented. */
export function formatCheckResults(results: CheckResult[], maxListed = 20): string[] {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`${result.ok ? "✓" : "✗"} ${result.id}: ${result.summary}`);
    const more = result.problems.slice(1);
    for (const problem of more.slice(0, maxListed)) lines.push(`    ${problem}`);
    if (more.length > maxListed) lines.push(`    … ${more.length - maxListed} more`);
    for (const note of result.notes.slice(0, maxListed)) lines.push(`    note: ${note}`);
  }
  return lines;
}
