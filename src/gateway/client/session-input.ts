// RELAX_INPUT_JSON: the session input Relax writes for one rollout. The whole object becomes environment.task.
import { readFile } from "node:fs/promises";
import type { JsonObject } from "../types.ts";
import { ClientInputError } from "./errors.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Checks the shape (`messages` array, optional `metadata` object) and defaults `metadata` to `{}`. */
export function validateSessionInput(payload: unknown): JsonObject {
  if (!isObject(payload)) throw new ClientInputError("RELAX_INPUT_JSON must contain a JSON object");
  if (!Array.isArray(payload.messages)) throw new ClientInputError("RELAX_INPUT_JSON must contain a messages array");
  if (payload.metadata !== undefined && !isObject(payload.metadata)) throw new ClientInputError("RELAX_INPUT_JSON metadata must be a JSON object");
  return payload.metadata === undefined ? { ...payload, metadata: {} } : payload;
}

export async function readSessionInput(path: string): Promise<JsonObject> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ClientInputError(`cannot read RELAX_INPUT_JSON ${path} (${(error as NodeJS.ErrnoException).code ?? "read error"})`);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    // The parser's message quotes the input; the path and the fact are enough.
    throw new ClientInputError(`RELAX_INPUT_JSON ${path} is not valid JSON`);
  }
  return validateSessionInput(payload);
}
