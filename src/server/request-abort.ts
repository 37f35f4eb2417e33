// An AbortSignal per request, so a long-running tool can stop when nobody will read its answer: it fires when
// the client goes away before the reply is written, or when the server starts closing.
import type { ServerResponse } from "node:http";

/** Aborted once, when the server begins to close; every request signal follows it. */
export class ServerClosing {
  readonly #controller = new AbortController();
  get signal(): AbortSignal {
    return this.#controller.signal;
  }
  close(): void {
    this.#controller.abort(new DOMException("The server is closing", "AbortError"));
  }
}

/** A signal for one request: aborted if `response` closes unfinished (client disconnect) or the server closes. */
export function requestAbortSignal(response: ServerResponse, closing: ServerClosing): AbortSignal {
  const controller = new AbortController();
  const onServerClosing = () => controller.abort(closing.signal.reason);
  if (closing.signal.aborted) onServerClosing();
  else closing.signal.addEventListener("abort", onServerClosing, { once: true });
  // "close" also follows a reply that was fully written; only an unfinished one means the client left.
  let finished = false;
  response.once("finish", () => (finished = true));
  response.once("close", () => {
    closing.signal.removeEventListener("abort", onServerClosing);
    if (!finished && !response.writableFinished) controller.abort(new DOMException("The client disconnected", "AbortError"));
  });
  return controller.signal;
}
