/**
 * Fair admission of work under CPU saturation, one per process (it shares the process's event loop).
 *
 * libuv ≥ 1.45 (Node 20) accepts one connection per event-loop turn (libuv #3696, "don't accept() connections
 * in a loop"). A saturated server's turn grows with the work that became ready during the last one — a thousand
 * requests, ~100 ms — so connections opened under load sit in the kernel's accept queue for seconds with their
 * requests already sent (wrk at 1,024 connections on the model server: 450 waiting, accepted at ~10/s; p99 13 s
 * against p50 0.1 s), and the turn's batch outgrows what the CPU caches and the young generation hold (the same
 * server answered 2.4× more requests at 64 per turn than at 256). So each turn admits a bounded amount of work,
 * sized to keep turns near `targetTurnMs`, and the rest waits first in, first out: requests arriving over a socket,
 * and the answers to this process's own calls (the rest of a rollout already under way, which goes first). A lightly
 * loaded process admits everything at once; every turn with a request waiting admits one, so new work always proceeds.
 */
export interface TurnAdmissionOptions {
  /** The turn length admissions aim at; shorter turns accept connections sooner. */
  targetTurnMs: number;
  /** Most admissions in one turn. */
  maxPerTurn: number;
}

/** `arriving`: a request a server received; `continuing`: the answer to a call this process made. */
export type WorkKind = "arriving" | "continuing";

class FifoQueue {
  private readonly items: (() => void)[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  push(resume: () => void): void {
    this.items.push(resume);
  }
  /** Resumes the oldest waiter. */
  admitOne(): void {
    this.items[this.head++]!();
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }
}

export class TurnAdmission {
  private perTurn = 1;
  private admittedThisTurn = 0;
  private readonly arriving = new FifoQueue();
  private readonly continuing = new FifoQueue();
  private turn: NodeJS.Immediate | undefined;
  private lastTurnAt = performance.now();

  constructor(private readonly options: TurnAdmissionOptions) {}

  /** Undefined when the work may run now; otherwise a promise settled at its turn. */
  enter(kind: WorkKind): Promise<void> | undefined {
    const aheadOfIt = kind === "continuing" ? this.continuing.size : this.continuing.size + this.arriving.size;
    if (aheadOfIt === 0 && this.admittedThisTurn < this.perTurn) {
      this.admittedThisTurn++;
      this.scheduleTurn(false);
      return undefined;
    }
    const queue = kind === "continuing" ? this.continuing : this.arriving;
    const turn = new Promise<void>((resolve) => queue.push(resolve));
    this.scheduleTurn(true);
    return turn;
  }

  /** Work waiting for its turn. */
  get queued(): number {
    return this.arriving.size + this.continuing.size;
  }

  /**
   * The end of this turn: an immediate runs after the turn's I/O. With work waiting it keeps the next poll from
   * blocking; without (only the count to reset) it is unref'd: it still runs at this turn's end, but never keeps
   * an idle process awake or alive (a CLI exits when its last call is answered).
   */
  private scheduleTurn(workWaiting: boolean): void {
    if (this.turn === undefined) {
      this.turn = setImmediate(this.onTurn);
      if (!workWaiting) this.turn.unref();
    } else if (workWaiting) this.turn.ref();
  }

  private readonly onTurn = (): void => {
    this.turn = undefined;
    const now = performance.now();
    const turnMs = now - this.lastTurnAt;
    this.lastTurnAt = now;
    // Additive increase while turns are short, halving when one ran long.
    this.perTurn = turnMs > this.options.targetTurnMs ? Math.max(1, this.perTurn >> 1) : Math.min(this.options.maxPerTurn, this.perTurn + 1);
    this.admittedThisTurn = 0;
    if (this.arriving.size > 0) {
      this.admittedThisTurn++;
      this.arriving.admitOne();
    }
    while (this.continuing.size > 0 && this.admittedThisTurn < this.perTurn) {
      this.admittedThisTurn++;
      this.continuing.admitOne();
    }
    while (this.arriving.size > 0 && this.admittedThisTurn < this.perTurn) {
      this.admittedThisTurn++;
      this.arriving.admitOne();
    }
    if (this.queued > 0 || this.admittedThisTurn > 0) this.scheduleTurn(this.queued > 0);
  };
}

/** Turns near 1 ms accept a waiting connection every millisecond; 64 a turn is past where batches stop paying. */
export const processAdmission = new TurnAdmission({ targetTurnMs: 1, maxPerTurn: 64 });
