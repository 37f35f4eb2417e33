// An AbortSignal per request, so a long-running tool can stop when nobody will read its answer: it fires when
// the client goes away before the reply is written, or when the server starts closing.
import type { ServerResponse } from "node:http";

const disconnected = () => new DOMException("The client disconnected", "AbortError");
const serverClosing = () => new DOMException("The server is closing", "AbortError");

/** The signals of one server's in-flight requests (a set, not listeners on one shared signal: no listener cap). */
export class RequestSignals {
  readonly #inFlight = new Set<AbortController>();
  #closing = false;

  /** A signal for the request `response` answers: aborted if it closes unfinished, or when the server closes. */
  signalFor(response: ServerResponse): AbortSignal {
    const controller = new AbortController();
    if (this.#closing) {
      controller.abort(serverClosing());
      return controller.signal;
    }
    this.#inFlight.add(controller);
    // "close" also follows a reply that was fully written; only an unfinished one means the client left.
    let finished = false;
    response.once("finish", () => (finished = true));
    response.once("close", () => {
      this.#inFlight.delete(controller);
      if (!finished && !response.writableFinished) controller.abort(disconnected());
    });
    return controller.signal;
  }

  /**
   * A signal for a call answered in-process (in-process-route.ts): aborted when `caller` aborts (the caller gave up,
   * or its deadline passed), or when the server closes. `done()` once the call is answered.
   */
  signalForCall(caller: AbortSignal): { signal: AbortSignal; done(): void } {
    const controller = new AbortController();
    if (this.#closing || caller.aborted) {
      controller.abort(this.#closing ? serverClosing() : disconnected());
      return { signal: controller.signal, done: () => undefined };
    }
    this.#inFlight.add(controller);
    const onAbort = () => {
      this.#inFlight.delete(controller);
      controller.abort(disconnected());
    };
    caller.addEventListener("abort", onAbort, { once: true });
    return {
      signal: controller.signal,
      done: () => {
        this.#inFlight.delete(controller);
        caller.removeEventListener("abort", onAbort);
      },
    };
  }

  /** The server begins to close: every in-flight request's signal fires, and any later one is born aborted. */
  abortAll(): void {
    this.#closing = true;
    for (const controller of this.#inFlight) controller.abort(serverClosing());
    this.#inFlight.clear();
  }
}
