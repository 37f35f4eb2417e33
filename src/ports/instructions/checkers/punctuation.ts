// punctuation:* — a character that must not appear anywhere.
import { instruction } from "../instruction.ts";

export const noComma = instruction([], () => (response) => !response.includes(","));
export const noDot = instruction([], () => (response) => !response.includes("."));
export const noExclamation = instruction([], () => (response) => !response.includes("!"));
