// Per-session memory of tool answers by idempotency key, so a tool call replayed after a connection reset (the
// server ran it, the caller never saw the answer) is answered from memory instead of running twice.
//
// A key's first request claims it and runs; its answer (status, content type, body bytes) is stored when it is sent.
// A request with the same key in the same session while the first is in flight waits for it, then gets its answer;
// one arriving later gets the stored answer. A claim whose request ended without an answer is released, and the
// next request with that key runs. Sessions untouched for the idle TTL are forgotten (as their state is).

export interface StoredReply {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

export type Claim = { kind: "run"; complete(reply: StoredReply): void; release(): void } | { kind: "replay"; reply: StoredReply };

interface SessionReplies {
  touchedAt: number;
  /** A pending promise while the key's first request runs; it resolves to the reply, or undefined if released. */
  byKey: Map<string, StoredReply | Promise<StoredReply | undefined>>;
}

export class IdempotentReplies {
  private readonly sessions = new Map<string, SessionReplies>();
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(idleTtlMs: number) {
    if (Number.isFinite(idleTtlMs)) {
      this.sweeper = setInterval(() => this.sweep(Date.now() - idleTtlMs), Math.min(idleTtlMs, 60_000));
      this.sweeper.unref();
    }
  }

  /** Run the request (and report its reply), or replay the stored reply of an earlier one. */
  async claim(sessionId: string, key: string): Promise<Claim> {
    for (;;) {
      const session = this.session(sessionId);
      const known = session.byKey.get(key);
      if (known === undefined) return this.claimFor(session, key);
      const reply = await known;
      if (reply !== undefined) return { kind: "replay", reply };
      // The first request ended without an answer: the key is free again (or claimed by another waiter by now).
    }
  }

  /** Forgets a session's replies (its state was dropped). */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sessions.clear();
  }

  private session(sessionId: string): SessionReplies {
    let session = this.sessions.get(sessionId);
    if (!session) {
      session = { touchedAt: Date.now(), byKey: new Map() };
      this.sessions.set(sessionId, session);
    }
    session.touchedAt = Date.now();
    return session;
  }

  private claimFor(session: SessionReplies, key: string): Claim {
    let settle!: (reply: StoredReply | undefined) => void;
    session.byKey.set(key, new Promise<StoredReply | undefined>((resolve) => (settle = resolve)));
    let settled = false;
    return {
      kind: "run",
      complete: (reply) => {
        if (settled) return;
        settled = true;
        session.byKey.set(key, reply);
        settle(reply);
      },
      release: () => {
        if (settled) return;
        settled = true;
        session.byKey.delete(key);
        settle(undefined);
      },
    };
  }

  private sweep(cutoff: number): void {
    for (const [id, session] of this.sessions) if (session.touchedAt < cutoff) this.sessions.delete(id);
  }
}
