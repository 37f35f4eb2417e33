// A streamed Anthropic Messages call (spec §2.3 step 10). The upstream reply is buffered, so the agent (Claude
// Code) would see a silent connection for the whole generation and may give up on it; pings keep it open.
import type { ServerResponse } from "node:http";
import type { Logger } from "../../server/logger.ts";
import { CallbackCancelledError, CallbackForwardError, type ForwardResult } from "./forward.ts";

export const DEFAULT_PING_INTERVAL_MS = 15_000;
export const PING_EVENT = sseEvent("ping", { type: "ping" });

export interface MessagesStreamOptions {
  pingIntervalMs?: number;
  logger: Logger;
}

/**
 * Opens the SSE reply at once, pings until `forward` settles, then writes Relax's SSE text verbatim, or one
 * `error` event in the Messages error shape.
 */
export async function streamMessagesReply(raw: ServerResponse, forward: Promise<ForwardResult>, options: MessagesStreamOptions): Promise<void> {
  const write = (text: string) => {
    if (!raw.destroyed && !raw.writableEnded) raw.write(text);
  };
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
    connection: "keep-alive",
  });
  write(PING_EVENT);
  const pings = setInterval(() => write(PING_EVENT), options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS);
  let ending: string;
  try {
    ending = eventsFor(await forward);
  } catch (error) {
    ending = errorEvent(failureMessage(error, options.logger));
  } finally {
    clearInterval(pings);
  }
  write(ending);
  if (!raw.destroyed && !raw.writableEnded) raw.end();
}

function eventsFor(result: ForwardResult): string {
  if (result.status >= 400) {
    // Relax already speaks the Messages error shape; anything else is replaced by a generic one.
    if (result.contentType === "application/json" && result.body.type === "error") return sseEvent("error", result.body);
    return errorEvent("Upstream model callback failed");
  }
  if (result.contentType !== "text/event-stream") return errorEvent("Upstream model callback returned a non-SSE response");
  return result.body;
}

function failureMessage(error: unknown, logger: Logger): string {
  if (error instanceof CallbackForwardError) return error.detail;
  if (error instanceof CallbackCancelledError) return "callback capability is unavailable";
  logger.error({ err: error }, "streamed messages callback failed");
  return "Gateway error while forwarding the model callback";
}

function errorEvent(message: string): string {
  return sseEvent("error", { type: "error", error: { type: "api_error", message } });
}

function sseEvent(event: string, payload: object): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}
