// The table of a run's lines, filtered and cut into pages on the server, so the page never holds more than one
// page of a 100k-rollout run; and two runs of the same inputs (a collection and its `gym eval reverify`) joined
// on task/repeat, for the rows whose reward changed.
import { rolloutKeyOf, type LineSummary } from "./line-summary.ts";
import type { ViewedRun } from "./viewed-run.ts";

export interface TableFilter {
  /** `rollout`: scored lines only; `failure`: failed attempts only; `all`: both. */
  status: "all" | "rollout" | "failure";
  failureClass?: string;
  /** Case-insensitive, in the prompt or the agent's name. */
  text?: string;
  task?: number;
  minReward?: number;
  maxReward?: number;
}

export interface Page<T> {
  total: number;
  offset: number;
  rows: T[];
}

function matches(filter: TableFilter): (line: LineSummary) => boolean {
  const text = filter.text?.trim().toLowerCase();
  return (line) =>
    (filter.failureClass === undefined || line.failureClass === filter.failureClass) &&
    (filter.task === undefined || line.task === filter.task) &&
    (filter.minReward === undefined || (line.reward !== null && line.reward >= filter.minReward)) &&
    (filter.maxReward === undefined || (line.reward !== null && line.reward <= filter.maxReward)) &&
    (!text || line.prompt.toLowerCase().includes(text) || (line.agent ?? "").toLowerCase().includes(text));
}

/** The lines without their byte positions: what the page gets. */
export type TableRow = Omit<LineSummary, "offset" | "bytes">;
const tableRow = ({ offset: _offset, bytes: _bytes, ...row }: LineSummary): TableRow => row;

export function tablePage(run: ViewedRun, filter: TableFilter, offset: number, limit: number): Page<TableRow> {
  const sources = filter.status === "all" ? [run.rollouts.lines, run.failures.lines] : [run.file(filter.status).lines];
  const keep = matches(filter);
  const rows: TableRow[] = [];
  let total = 0;
  // One pass, keeping only the page: the filtered set is never materialized.
  for (const lines of sources) {
    for (const line of lines) {
      if (!keep(line)) continue;
      if (total >= offset && rows.length < limit) rows.push(tableRow(line));
      total++;
    }
  }
  return { total, offset, rows };
}

export interface ComparedRow {
  task: number | null;
  repeat: number | null;
  /** Line index of the rollout in each run's rollouts file; null: the run has no rollout for this task/repeat. */
  lineA: number | null;
  lineB: number | null;
  rewardA: number | null;
  rewardB: number | null;
  prompt: string;
}

export interface Comparison extends Page<ComparedRow> {
  /** Task/repeat pairs scored in both runs. */
  inBoth: number;
  /** Of those, the ones whose reward differs. */
  rewardChanged: number;
  onlyInA: number;
  onlyInB: number;
}

/** Rollouts whose reward differs between the runs, or that only one of them scored; in run A's order, then B's. */
export function compareRuns(a: ViewedRun, b: ViewedRun, offset: number, limit: number): Comparison {
  const inB = new Map<string, LineSummary>();
  for (const line of b.rollouts.lines) inB.set(rolloutKeyOf(line), line);
  const seenInA = new Set<string>();
  const rows: ComparedRow[] = [];
  let total = 0;
  let inBoth = 0;
  let rewardChanged = 0;
  let onlyInA = 0;
  const push = (row: ComparedRow) => {
    if (total >= offset && rows.length < limit) rows.push(row);
    total++;
  };
  for (const line of a.rollouts.lines) {
    const key = rolloutKeyOf(line);
    seenInA.add(key);
    const other = inB.get(key);
    if (other) {
      inBoth++;
      if (other.reward === line.reward) continue;
      rewardChanged++;
    } else onlyInA++;
    push({ task: line.task, repeat: line.repeat, lineA: line.index, lineB: other?.index ?? null, rewardA: line.reward, rewardB: other?.reward ?? null, prompt: line.prompt });
  }
  let onlyInB = 0;
  for (const [key, line] of inB) {
    if (seenInA.has(key)) continue;
    onlyInB++;
    push({ task: line.task, repeat: line.repeat, lineA: null, lineB: line.index, rewardA: null, rewardB: line.reward, prompt: line.prompt });
  }
  return { total, offset, rows, inBoth, rewardChanged, onlyInA, onlyInB };
}
