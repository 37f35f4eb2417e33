// One SQL environment instance's start and stop: databases present (else NeMo Gym's first-start download), the
// sandbox probed once (a host without one fails here, before the first request), closed with the server.
import { mkdirSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import type { ServerContext } from "../server/definition.ts";
import { downloadInBackground } from "./databases.ts";
import { SqliteSandbox } from "./runner.ts";

export interface SqlInstanceOptions {
  /** The folder whose files the db_ids name (absolute). */
  databaseDir: string;
  /** NeMo Gym's "already present" test. */
  present: () => boolean;
  /** Fetches the databases into `databaseDir`; undefined when no download is configured. */
  download?: () => Promise<void>;
  maxConcurrent: number;
  timeoutMs: number;
}

/** The running instances, by server: set at startup, read by verify. */
export class SqlInstances {
  private readonly byServer = new WeakMap<ServerContext<unknown>, SqliteSandbox>();
  private readonly downloads = new WeakMap<ServerContext<unknown>, Promise<void>>();

  /** Settles when the server's first-start download has finished or failed (at once when there was none). */
  downloaded(server: ServerContext<any>): Promise<void> {
    return this.downloads.get(server) ?? Promise.resolve();
  }

  /** For a resources server's `routes` hook: runs at startup, stops with the server. */
  async start(scope: FastifyInstance, server: ServerContext<any>, options: SqlInstanceOptions): Promise<void> {
    // A row whose database is missing is a 501 naming it; the folder itself is made so that the download has a home.
    mkdirSync(options.databaseDir, { recursive: true });
    let downloaded: Promise<void> | undefined;
    if (!options.present() && options.download) downloaded = downloadInBackground(options.databaseDir, options.download, server.log);
    else if (!options.present()) server.log.warn(`no databases in ${options.databaseDir}: every row will answer 501 until they are there`);
    this.downloads.set(server, downloaded ?? Promise.resolve());
    const sandbox = new SqliteSandbox({ databaseDir: options.databaseDir, maxConcurrent: options.maxConcurrent, timeoutMs: options.timeoutMs });
    try {
      await sandbox.ensureAvailable();
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    this.byServer.set(server, sandbox);
    scope.addHook("onClose", async () => sandbox.close());
  }

  of(server: ServerContext<any>): SqliteSandbox {
    const sandbox = this.byServer.get(server);
    if (!sandbox) throw new Error("the SQL sandbox of this server was not started (its routes hook did not run)");
    return sandbox;
  }
}
