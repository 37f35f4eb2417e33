// A judge for parity tests that answers in order: the parity reference sets (../shared/nemo-gym-data/<server>/parity)
// record each line's `judge_replies`, the judge's answers in the order NeMo Gym's verify asked for them — a string is
// the judge's text, `{body}` a Responses body returned verbatim, `{http_status, body}` a failed call. Load a line's
// replies, post the line to /verify, and the judge answers each call with the next one (a call beyond them is a 404:
// a failed judge call, never a made-up verdict). For servers whose prompt this port cannot rebuild byte for byte
// without NeMo Gym's file, this reproduces the reward from the recorded verdicts alone.
import { z } from "zod";
import { HttpError } from "../protocol/errors.ts";
import type { NeMoGymResponse } from "../protocol/index.ts";
import { responsesApiModel } from "../server/model-server.ts";
import type { ServerDefinition } from "../server/definition.ts";
import { assistantMessage, responseWith } from "./requests.ts";

export type JudgeReply = string | { body: unknown; http_status?: number };

export interface RepliesJudge {
  definition: ServerDefinition;
  /** The replies of the next verify; what was left of the previous ones is dropped. */
  load(replies: readonly JudgeReply[]): void;
  /** The requests (as the model server validated them) of the calls answered since the last load. */
  readonly asked: Record<string, unknown>[];
  /** Replies not used since the last load. */
  remaining(): number;
}

export function repliesJudge(): RepliesJudge {
  let queue: JudgeReply[] = [];
  const asked: Record<string, unknown>[] = [];
  const definition = responsesApiModel({
    name: "RepliesJudge",
    config: z.looseObject({}),
    async responses({ params }) {
      asked.push(params as unknown as Record<string, unknown>);
      const reply = queue.shift();
      if (reply === undefined) throw new HttpError(404, "replies judge: no recorded reply left for this call");
      if (typeof reply === "string") return responseWith([assistantMessage(reply)]) as unknown as NeMoGymResponse;
      if (reply.http_status !== undefined && (reply.http_status < 200 || reply.http_status > 299)) throw new HttpError(reply.http_status, reply.body);
      return reply.body as NeMoGymResponse;
    },
  });
  return {
    definition,
    load(replies) {
      queue = [...replies];
      asked.length = 0;
    },
    asked,
    remaining: () => queue.length,
  };
}
