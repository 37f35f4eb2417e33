// Reading a Responses API conversation the way both scripted policies need it.
import type { ResponseCreateParamsInput } from "../../src/protocol/index.ts";

export type Item = Record<string, any>;

/** The input as a list of items (a string input is one user message). */
export function inputItems(input: ResponseCreateParamsInput["input"]): Item[] {
  return typeof input === "string" ? [{ type: "message", role: "user", content: input }] : (input as Item[]);
}

export const isMessage = (item: Item) => (item.type === undefined || item.type === "message") && typeof item.role === "string";

/** The text of a message's content: a string, or the concatenated `text` of its parts. */
export function messageText(item: Item): string {
  if (typeof item.content === "string") return item.content;
  if (Array.isArray(item.content)) return item.content.map((part: Item) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/** Comparable form of a prompt message: only what a model would condition on. */
export const messageKey = (item: Item) => ({ role: item.role, text: messageText(item) });
