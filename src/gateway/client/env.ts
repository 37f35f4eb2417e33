// Reading the thin client's settings from environment variables; every error names the variable.
import type { JsonObject } from "../types.ts";
import { ClientInputError } from "./errors.ts";

export type Env = Readonly<Record<string, string | undefined>>;

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

export function requiredEnv(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === "") throw new ClientInputError(`${name} must be set to a non-empty value`);
  return value;
}

/** The value when set and not blank, else undefined (for `A || B || default` fallbacks). */
export function optionalEnv(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
}

function numberEnv(env: Env, name: string, fallback: number, pattern: RegExp, kind: string, accept: (n: number) => boolean, rule: string): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const text = raw.trim();
  const value = pattern.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || !accept(value)) throw new ClientInputError(`${name} must be ${kind} ${rule}`);
  return value;
}

export const positiveNumberEnv = (env: Env, name: string, fallback: number) =>
  numberEnv(env, name, fallback, DECIMAL, "a number", (n) => n > 0, "greater than zero");

export const nonNegativeNumberEnv = (env: Env, name: string, fallback: number) =>
  numberEnv(env, name, fallback, DECIMAL, "a number", (n) => n >= 0, "greater than or equal to zero");

export const positiveIntegerEnv = (env: Env, name: string, fallback: number) =>
  numberEnv(env, name, fallback, INTEGER, "an integer", (n) => Number.isSafeInteger(n) && n >= 1, "greater than or equal to one");

export const nonNegativeIntegerEnv = (env: Env, name: string, fallback: number) =>
  numberEnv(env, name, fallback, INTEGER, "an integer", (n) => Number.isSafeInteger(n) && n >= 0, "greater than or equal to zero");

/** A JSON object from a variable, `{}` when unset; the value is never echoed (it may hold credentials). */
export function jsonObjectEnv(env: Env, name: string): JsonObject {
  const raw = env[name];
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ClientInputError(`${name} must contain a JSON object (it is not valid JSON)`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ClientInputError(`${name} must contain a JSON object`);
  return value as JsonObject;
}
