// Checks one instruction the way the server does (kwargs with None dropped, failures → not followed).
import { checkInstruction } from "../../../src/ports/instructions/index.ts";

export const follows = (id: string, kwargs: Record<string, unknown> | null, text: string): boolean => checkInstruction(id, kwargs, text).followed;
