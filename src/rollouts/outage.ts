// Telling an outage of the stack from a rollout's own failure. After a failed attempt the collector asks
// whether a server the run uses is down (its liveness route, `GET /`, does not answer); while one is, dispatch
// pauses and the attempts that fail are not counted against their rollout's budget. The wait is bounded: an
// outage that outlasts it stops the run, with every unfinished rollout left for `--resume`.
import { HttpClient, type ServerClient } from "../client/index.ts";
import { listServerInstances, type ConfigDict } from "../config/index.ts";

export interface DownServer {
  name: string;
  /** Why its liveness probe failed (refused, timed out, answered 503, …). */
  reason: string;
}

/** Liveness of the servers a run uses. */
export interface StackHealth {
  /** The servers that do not answer their liveness route now; concurrent callers share one probe round. */
  probe(): Promise<DownServer[]>;
  close(): Promise<void>;
}

const SERVER_TYPES = new Set(["resources_servers", "responses_api_agents", "responses_api_models"]);

/** `{type: <server type>, name}` anywhere in a server's config block: a server it calls. */
function serverRefsIn(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) return value.forEach((item) => serverRefsIn(item, into));
  if (value === null || typeof value !== "object") return;
  const { type, name } = value as { type?: unknown; name?: unknown };
  if (typeof type === "string" && SERVER_TYPES.has(type) && typeof name === "string") into.add(name);
  for (const child of Object.values(value)) serverRefsIn(child, into);
}

/** The agents, and every server they reference (transitively), that exist in `config`: what a run depends on. */
export function serversUsedBy(config: ConfigDict, agentNames: Iterable<string>): string[] {
  const instances = new Map(listServerInstances(config, { errorOnAlmostServers: false, logger: { warn: () => undefined } }).map((i) => [i.instanceName, i]));
  const used = new Set<string>();
  const pending = [...agentNames];
  while (pending.length > 0) {
    const name = pending.pop()!;
    const instance = instances.get(name);
    if (!instance || used.has(name)) continue;
    used.add(name);
    const refs = new Set<string>();
    serverRefsIn(instance.fields, refs);
    pending.push(...refs);
  }
  return [...used].sort();
}

/**
 * Probes `GET /` of each server with its own small connection pool (so a probe never queues behind the run's
 * requests), a short deadline and no retries. A round is reused by callers for `freshForMs` after it ended.
 */
export function livenessProbe(client: ServerClient, serverNames: readonly string[], options: { deadlineMs?: number; freshForMs?: number } = {}): StackHealth {
  const deadlineMs = options.deadlineMs ?? 2000;
  const freshForMs = options.freshForMs ?? 250;
  const http = new HttpClient({ connectTimeoutMs: deadlineMs, deadlineMs, maxRetries: 0, connectionsPerOrigin: 2 });
  let round: Promise<DownServer[]> | undefined;
  let roundEndedAt = 0;
  const probeOne = async (name: string): Promise<DownServer | undefined> => {
    try {
      const answer = await http.request(`${await client.baseUrl(name)}/`, { deadlineMs });
      return answer.ok ? undefined : { name, reason: `GET / answered ${answer.status}` };
    } catch (error) {
      return { name, reason: (error as Error).message };
    }
  };
  return {
    probe() {
      if (round && (roundEndedAt === 0 || Date.now() - roundEndedAt < freshForMs)) return round;
      roundEndedAt = 0;
      round = Promise.all(serverNames.map(probeOne)).then((results) => {
        roundEndedAt = Date.now();
        return results.filter((down): down is DownServer => down !== undefined);
      });
      return round;
    },
    close: () => http.close(),
  };
}

export interface OutageOptions {
  health: StackHealth | undefined;
  /** How long dispatch waits for the servers to come back before the run stops. */
  waitMs: number;
  /** How often a paused run probes again. */
  pollMs?: number;
  /** Where the one-line notices go (stderr). */
  warn: (line: string) => void;
  /** Stops the run (every in-flight attempt is aborted); called when the wait runs out. */
  stopRun: (reason: string) => void;
  stopSignal: AbortSignal;
}

interface Outage {
  servers: DownServer[];
  since: number;
  /** Resolves when the servers answer again (true) or the run stops (false). */
  over: Promise<boolean>;
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** The collector's view of the stack: healthy, or in an outage that dispatch waits out. */
export class OutageWatch {
  private outage: Outage | undefined;

  constructor(private readonly options: OutageOptions) {}

  /** The servers known down now (empty when no outage is going on). */
  get down(): DownServer[] {
    return this.outage?.servers ?? [];
  }

  /**
   * Called after an attempt failed in a way a dead server could cause: true when it failed during an outage
   * (then the caller does not count it and waits with `untilUp`).
   */
  async failedDuringOutage(): Promise<boolean> {
    if (this.options.stopSignal.aborted) return true;
    if (this.outage) return true;
    if (!this.options.health) return false;
    const down = await this.options.health.probe();
    if (down.length === 0) return this.outage !== undefined;
    this.outage ??= this.startOutage(down);
    return true;
  }

  /** Resolves when dispatch may go on: true at once without an outage, false if the run stopped meanwhile. */
  async untilUp(): Promise<boolean> {
    if (this.options.stopSignal.aborted) return false;
    return this.outage ? this.outage.over : true;
  }

  private startOutage(servers: DownServer[]): Outage {
    const since = Date.now();
    const { waitMs, warn, stopRun, stopSignal } = this.options;
    const pollMs = this.options.pollMs ?? 1000;
    const names = (list: DownServer[]) => list.map((s) => `'${s.name}'`).join(", ");
    warn(
      `gym eval run: server ${names(servers)} is down since ${clock(since)} (${servers[0]!.reason}); dispatch paused, waiting up to ${Math.round(waitMs / 1000)} s (--outage-wait) for ${servers.length === 1 ? "it" : "them"} to answer GET / again`,
    );
    const over = (async () => {
      while (!stopSignal.aborted) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          stopSignal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        });
        if (stopSignal.aborted) break;
        const down = await this.options.health!.probe();
        if (down.length === 0) {
          warn(`gym eval run: every server answers again after ${((Date.now() - since) / 1000).toFixed(1)} s; dispatch resumed`);
          this.outage = undefined;
          return true;
        }
        this.outage!.servers = down;
        if (Date.now() - since >= waitMs) {
          stopRun(`server ${names(down)} still down after ${Math.round((Date.now() - since) / 1000)} s (since ${clock(since)}: ${down[0]!.reason})`);
          break;
        }
      }
      return false;
    })();
    return { servers, since, over };
  }
}
