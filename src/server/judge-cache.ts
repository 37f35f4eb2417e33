// The judge result cache: a judge answer keyed by (judge server, the model it serves, endpoint, the whole request —
// prompt and sampling parameters). Off unless the global config sets `judge_cache_path`; then `gym eval reverify` of
// stored rollouts, or a resumed collection, does not pay twice for the same judgement. Only answers that arrived are
// stored, never a failed call. SQLite, so it survives restarts and is shared by the processes of one machine (WAL).
// With a sampling temperature above 0 a hit returns the first judgement again instead of a fresh sample: that is the
// point of a cache, and why it is off by default.
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createRequire } from "node:module";
import type Database from "better-sqlite3";

// Loaded when a cache is opened: every server imports this floor, and only a judge with judge_cache_path needs
// SQLite's native addon.
const openDatabase = (path: string): Database.Database => {
  const DatabaseClass = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
  return new DatabaseClass(path);
};
import { pythonJsonDumps } from "../python/json-dumps.ts";

export interface JudgeCache {
  keyOf(serverName: string, model: string, endpoint: string, request: unknown): string;
  get(key: string): unknown | undefined;
  set(key: string, answer: unknown): void;
  close(): void;
}

/** Sorted-key JSON, so two requests that differ only in key order share an entry. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined).map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export class SqliteJudgeCache implements JudgeCache {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], { answer: string }>;
  private readonly insert: Database.Statement<[string, string, string, number]>;

  constructor(readonly path: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = openDatabase(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec("CREATE TABLE IF NOT EXISTS judge_answers (key TEXT PRIMARY KEY, model TEXT NOT NULL, answer TEXT NOT NULL, created_at INTEGER NOT NULL)");
    this.select = this.db.prepare("SELECT answer FROM judge_answers WHERE key = ?");
    this.insert = this.db.prepare("INSERT OR IGNORE INTO judge_answers (key, model, answer, created_at) VALUES (?, ?, ?, ?)");
  }

  keyOf(serverName: string, model: string, endpoint: string, request: unknown): string {
    return createHash("sha256").update(pythonJsonDumps(canonical({ serverName, model, endpoint, request }))).digest("hex") + `:${model}`;
  }

  get(key: string): unknown | undefined {
    const row = this.select.get(key);
    return row === undefined ? undefined : JSON.parse(row.answer);
  }

  set(key: string, answer: unknown): void {
    this.insert.run(key, key.slice(key.indexOf(":") + 1), JSON.stringify(answer), Date.now());
  }

  close(): void {
    this.db.close();
  }
}

const open = new Map<string, SqliteJudgeCache>();

/** One handle per file per process. */
export function judgeCacheFor(path: string): JudgeCache {
  const absolute = path === ":memory:" ? path : resolve(path);
  let cache = open.get(absolute);
  if (!cache) open.set(absolute, (cache = new SqliteJudgeCache(absolute)));
  return cache;
}
