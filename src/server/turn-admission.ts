/**
 * Fair admission of requests under CPU saturation, one per process (it shares the process's event loop).
 *
 * libuv ≥ 1.45 (Node 20) accepts one connection per event-loop turn (libuv #3696, "don't accept() connections
 * in a loop"). A saturated server's turn grows with the work that became ready during the last one — a thousand
 * requests, ~100 ms — so connections opened under load sit in the kernel's accept queue for seconds with their
 * requests already sent (wrk at 1,024 connections on the model server: 450 waiting, accepted at ~10/s; p99 13 s
 * against p50 0.1 s), and the turn's batch outgrows what the CPU caches and the young generation hold (the same
 * server answered 2.4× more requests at 64 per turn than at 256). So each turn admits a bounded number of the
 * requests that arrived over a socket, sized to keep turns near `targetTurnMs`, and the rest wait first in, first
 * out. A lightly loaded process admits every request at once; every turn admits at least one, so work proceeds.
 *
 * The answers to the process's own calls are not gated: admitting them too (ahead of new requests) emptied a
 * saturated agent's accept queue faster (p99 at 1,024 in flight 0.63× instead of 0.82× of the tree before) but cost
 * 15% more CPU per rollout there, 0.89× rollouts/s instead of 1.24× (wrk A/B, README "Speed").
 */
export interface TurnAdmissionOptions {
  /** The turn length admissions aim at; shorter turns accept connections sooner. */
  targetTurnMs: number;
  /** Most requests admitted in one turn. */
  maxPerTurn: number;
}

export class TurnAdmission {
  private perTurn = 1;
  private admittedThisTurn = 0;
  private readonly waiting: (() => void)[] = [];
  private head = 0;
  private turn: NodeJS.Immediate | undefined;
  private lastTurnAt = performance.now();

  constructor(private readonly options: TurnAdmissionOptions) {}

  /** Undefined when the request may run now; otherwise a promise settled at its turn. */
  enter(): Promise<void> | undefined {
    if (this.queued === 0 && this.admittedThisTurn < this.perTurn) {
      this.admittedThisTurn++;
      this.scheduleTurn(false);
      return undefined;
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.scheduleTurn(true);
    return turn;
  }

  /** Requests waiting for their turn. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /**
   * The end of this turn: an immediate runs after the turn's I/O. With requests waiting it keeps the next poll
   * from blocking; without (only the count to reset) it is unref'd: it still runs at this turn's end, but never
   * keeps an idle process awake or alive.
   */
  private scheduleTurn(requestsWaiting: boolean): void {
    if (this.turn === undefined) {
      this.turn = setImmediate(this.onTurn);
      if (!requestsWaiting) this.turn.unref();
    } else if (requestsWaiting) this.turn.ref();
  }

  private readonly onTurn = (): void => {
    this.turn = undefined;
    const now = performance.now();
    const turnMs = now - this.lastTurnAt;
    this.lastTurnAt = now;
    // Additive increase while turns are short, halving when one ran long.
    this.perTurn = turnMs > this.options.targetTurnMs ? Math.max(1, this.perTurn >> 1) : Math.min(this.options.maxPerTurn, this.perTurn + 1);
    this.admittedThisTurn = 0;
    while (this.head < this.waiting.length && this.admittedThisTurn < this.perTurn) {
      this.admittedThisTurn++;
      this.waiting[this.head++]!();
    }
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    if (this.queued > 0 || this.admittedThisTurn > 0) this.scheduleTurn(this.queued > 0);
  };
}

/** Turns near 1 ms accept a waiting connection every millisecond; 64 a turn is past where batches stop paying. */
export const processAdmission = new TurnAdmission({ targetTurnMs: 1, maxPerTurn: 64 });
