// Trial state in one SQLite file (or `:memory:`): survives a restart of a single gateway. better-sqlite3 is
// synchronous, so each method body is one atomic step with respect to every other request of this process.
import { EventEmitter } from "node:events";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { RECORD_FIELDS, decodeRecord, encodePatch, type CasCondition, type InsertOutcome, type TrialEvent, type TrialRecord, type TrialStore } from "./record.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
  request_id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, env_key TEXT NOT NULL, rollout_id TEXT NOT NULL UNIQUE,
  phase TEXT NOT NULL, status TEXT NOT NULL, cause TEXT, reward TEXT, metrics TEXT, artifact_ref TEXT, error TEXT,
  request TEXT, created_at INTEGER NOT NULL, deadline_at INTEGER NOT NULL, lease_expires_at INTEGER NOT NULL,
  terminal_at TEXT, driver TEXT
);
CREATE INDEX IF NOT EXISTS trials_env_phase ON trials (env_key, phase);
CREATE INDEX IF NOT EXISTS trials_phase_terminal_at ON trials (phase, terminal_at);
`;

export class SqliteTrialStore implements TrialStore {
  readonly backend = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly events = new EventEmitter();
  private readonly statements;
  private readonly updates = new Map<string, Database.Statement>();

  constructor(path: string) {
    if (path !== ":memory:") {
      mkdirSync(dirname(path), { recursive: true });
      const created = !existsSync(path);
      this.db = new Database(path);
      // The file holds model-endpoint credentials of running trials.
      if (created) chmodSync(path, 0o600);
    } else {
      this.db = new Database(path);
    }
    this.db.pragma("journal_mode = WAL");
    // WAL + NORMAL: a committed transition survives the gateway being killed (the WAL is in the OS's hands), but
    // not a power loss of the machine; FULL (an fsync per transition) cut a gateway to 90 trials/s here.
    this.db.pragma("synchronous = NORMAL");
    this.db.exec(SCHEMA);
    this.events.setMaxListeners(0);
    const columns = RECORD_FIELDS.join(", ");
    const placeholders = RECORD_FIELDS.map((f) => `@${f}`).join(", ");
    this.statements = {
      get: this.db.prepare(`SELECT * FROM trials WHERE request_id = ?`),
      byRollout: this.db.prepare(`SELECT request_id FROM trials WHERE rollout_id = ? AND phase = 'active'`),
      countLive: this.db.prepare(`SELECT COUNT(*) AS n FROM trials WHERE env_key = ? AND phase != 'terminal'`),
      insert: this.db.prepare(`INSERT INTO trials (${columns}) VALUES (${placeholders})`),
      expired: this.db.prepare(`SELECT * FROM trials WHERE phase = 'active' AND (deadline_at <= ? OR lease_expires_at <= ?)`),
      nonTerminal: this.db.prepare(`SELECT * FROM trials WHERE phase != 'terminal'`),
      counts: this.db.prepare(`SELECT COUNT(*) AS trials, SUM(phase != 'terminal') AS active FROM trials`),
      purge: this.db.prepare(`DELETE FROM trials WHERE phase = 'terminal' AND CAST(terminal_at AS INTEGER) < ?`),
      metaGet: this.db.prepare(`SELECT value FROM meta WHERE key = ?`),
      metaInsert: this.db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)`),
    };
  }

  async fingerprintKey(): Promise<Buffer> {
    this.statements.metaInsert.run("fingerprint_key", randomBytes(32));
    return (this.statements.metaGet.get("fingerprint_key") as { value: Buffer }).value;
  }

  async insert(record: TrialRecord, capacity: number): Promise<InsertOutcome> {
    const existing = this.statements.get.get(record.request_id) as Record<string, string> | undefined;
    if (existing) return { kind: "exists", record: decodeRecord(existing) };
    const live = (this.statements.countLive.get(record.env_key) as { n: number }).n;
    if (live >= capacity) return { kind: "full" };
    this.statements.insert.run(this.row(record));
    return { kind: "inserted", record };
  }

  async get(requestId: string): Promise<TrialRecord | null> {
    const row = this.statements.get.get(requestId) as Record<string, string> | undefined;
    return row ? decodeRecord(row) : null;
  }

  async requestIdForRollout(rolloutId: string): Promise<string | null> {
    return (this.statements.byRollout.get(rolloutId) as { request_id: string } | undefined)?.request_id ?? null;
  }

  async update(requestId: string, condition: CasCondition, patch: Partial<TrialRecord>): Promise<TrialRecord | null> {
    const current = await this.get(requestId);
    if (!current || !condition.phases.includes(current.phase)) return null;
    if (condition.statuses && !condition.statuses.includes(current.status)) return null;
    const columns = encodePatch(patch);
    const fields = Object.keys(columns);
    if (fields.length > 0) this.updateStatement(fields).run({ ...columns, request_id_key: requestId });
    return { ...current, ...patch };
  }

  async expiredActive(now: number): Promise<TrialRecord[]> {
    return (this.statements.expired.all(now, now) as Record<string, string>[]).map(decodeRecord);
  }

  async nonTerminal(): Promise<TrialRecord[]> {
    return (this.statements.nonTerminal.all() as Record<string, string>[]).map(decodeRecord);
  }

  async counts() {
    const row = this.statements.counts.get() as { trials: number; active: number | null };
    const active = row.active ?? 0;
    return { trials: row.trials, active, terminal: row.trials - active };
  }

  async purgeTerminal(before: number): Promise<number> {
    return this.statements.purge.run(before).changes;
  }

  async publish(event: TrialEvent): Promise<void> {
    this.events.emit("event", event);
  }

  subscribe(listener: (event: TrialEvent) => void): void {
    this.events.on("event", listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
    this.db.close();
  }

  /** One prepared UPDATE per set of patched fields (a handful of shapes: start, renew, cancel, finish). */
  private updateStatement(fields: string[]): Database.Statement {
    const key = fields.join(",");
    let statement = this.updates.get(key);
    if (!statement) {
      statement = this.db.prepare(`UPDATE trials SET ${fields.map((field) => `${field} = @${field}`).join(", ")} WHERE request_id = @request_id_key`);
      this.updates.set(key, statement);
    }
    return statement;
  }

  private row(record: TrialRecord): Record<string, string | number> {
    const columns: Record<string, string | number> = encodePatch(record);
    for (const field of ["created_at", "deadline_at", "lease_expires_at"] as const) columns[field] = record[field];
    return columns;
  }
}
