// FastAPI-shaped error bodies, so clients written for NeMo Gym read our errors unchanged.
import type { z } from "zod";
import { jsonRepr } from "../python/json-value.ts";

export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Request validation failure → 422 {"detail":[...]} (pydantic error types and messages). */
export class RequestValidationError extends Error {
  readonly statusCode = 422;
  constructor(readonly detail: ValidationDetail[]) {
    super(detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "));
    this.name = "RequestValidationError";
  }
}

/** An error with a status and a FastAPI `{"detail": ...}` body (HTTPException). */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.name = "HttpError";
  }
}

/**
 * The environment cannot run untrusted code here: no sandbox (bubblewrap missing, namespaces refused, a limit the
 * kernel cannot enforce). A 503 naming the cause and the fix, never a reward: nothing ran, and nothing may run
 * unsandboxed instead. Thrown by src/sandbox; the server maps it like any HttpError.
 */
export class SandboxUnavailableError extends HttpError {
  constructor(
    /** What is missing or refused, e.g. "bubblewrap (bwrap) is not installed". */
    readonly reason: string,
    /** What the operator runs or changes to get a sandbox. */
    readonly fix: string,
  ) {
    super(503, `Sandbox unavailable: ${reason}. Fix: ${fix}`);
    this.name = "SandboxUnavailableError";
  }
}

/** A non-2xx answer from another Gym server; becomes NeMo Gym's "Hit an exception … calling an inner server" 500. */
/** On a 500 caused by an inner server's error answer: that answer's status (our extension; NeMo Gym sends none). */
export const INNER_STATUS_HEADER = "x-ng-inner-status";

export class InnerServerError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: string,
    readonly url: string,
  ) {
    super(`${url} answered ${statusCode}: ${body.slice(0, 500)}`);
    this.name = "InnerServerError";
  }
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let node: any = input;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[key as any];
  }
  return node;
}

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ["string_type", "Input should be a valid string"],
  number: ["float_type", "Input should be a valid number"],
  int: ["int_type", "Input should be a valid integer"],
  boolean: ["bool_type", "Input should be a valid boolean"],
  array: ["list_type", "Input should be a valid list"],
  object: ["dict_type", "Input should be a valid dictionary"],
  record: ["dict_type", "Input should be a valid dictionary"],
  null: ["none_required", "Input should be None"],
};

/** pydantic's errors for numeric bounds (gt, ge, lt, le) and lengths (min_length, max_length). */
function boundDetail(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, loc: (string | number)[], input: unknown): ValidationDetail {
  const small = issue.code === "too_small";
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === "string") {
    const type = small ? "string_too_short" : "string_too_long";
    const msg = `String should have ${small ? "at least" : "at most"} ${bound} character${bound === 1 ? "" : "s"}`;
    return { type, loc, msg, input, ctx: { [small ? "min_length" : "max_length"]: bound } };
  }
  if (issue.origin === "array" || issue.origin === "set") {
    const actual = Array.isArray(input) ? input.length : 0;
    const msg = `List should have ${small ? "at least" : "at most"} ${bound} item${bound === 1 ? "" : "s"} after validation, not ${actual}`;
    return { type: small ? "too_short" : "too_long", loc, msg, input, ctx: { field_type: "List", [small ? "min_length" : "max_length"]: bound, actual_length: actual } };
  }
  const inclusive = issue.inclusive !== false;
  const [type, words, key] = small
    ? inclusive ? ["greater_than_equal", "greater than or equal to", "ge"] : ["greater_than", "greater than", "gt"]
    : inclusive ? ["less_than_equal", "less than or equal to", "le"] : ["less_than", "less than", "lt"];
  return { type, loc, msg: `Input should be ${words} ${bound}`, input, ctx: { [key]: bound } };
}

function detailFromIssue(issue: z.core.$ZodIssue, body: unknown, locPrefix: (string | number)[]): ValidationDetail[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
  const loc = [...locPrefix, ...path];
  // An issue raised without `reportInput` carries `input: undefined`; the body still holds the value.
  const input = "input" in issue && issue.input !== undefined ? issue.input : valueAt(body, path);
  switch (issue.code) {
    case "invalid_type": {
      if (input === undefined) return [{ type: "missing", loc, msg: "Field required", input: valueAt(body, path.slice(0, -1)) ?? {} }];
      const [type, msg] = TYPE_NAMES[issue.expected] ?? [`${issue.expected}_type`, `Input should be a valid ${issue.expected}`];
      return [{ type, loc, msg, input }];
    }
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        type: "extra_forbidden",
        loc: [...loc, key],
        msg: "Extra inputs are not permitted",
        input: valueAt(body, [...path, key]),
      }));
    case "invalid_value": {
      const options = issue.values.map(jsonRepr);
      const expected = options.length > 1 ? `${options.slice(0, -1).join(", ")} or ${options.at(-1)}` : options[0];
      return [{ type: "literal_error", loc, msg: `Input should be ${expected}`, input, ctx: { expected } }];
    }
    case "invalid_union": {
      // Report the union member that came closest (fewest issues), like a human would read it.
      const branches = issue.errors.filter((b) => b.length > 0).sort((a, b) => a.length - b.length);
      if (branches.length > 0) return branches[0]!.flatMap((sub) => detailFromIssue({ ...sub, path: [...issue.path, ...sub.path] } as z.core.$ZodIssue, body, locPrefix));
      return [{ type: "union_tag_invalid", loc, msg: issue.message, input }];
    }
    case "too_small":
    case "too_big":
      return [boundDetail(issue, loc, input)];
    case "custom": {
      // A check standing for a pydantic validator that raised ValueError: FastAPI prints its ctx as {"error": {}}.
      const pydantic = (issue.params as { pydantic?: { type: string; ctx?: Record<string, unknown> } } | undefined)?.pydantic;
      if (pydantic) return [pydantic.ctx ? { type: pydantic.type, loc, msg: issue.message, input, ctx: pydantic.ctx } : { type: pydantic.type, loc, msg: issue.message, input }];
      return [{ type: "value_error", loc, msg: issue.message, input }];
    }
    default:
      return [{ type: "value_error", loc, msg: issue.message, input }];
  }
}

/** zod issues as pydantic's error list, `loc` starting with `locPrefix`; `body` supplies inputs an issue lacks. */
export function detailsFromZodIssues(issues: readonly z.core.$ZodIssue[], body: unknown, locPrefix: (string | number)[] = []): ValidationDetail[] {
  return issues.flatMap((issue) => detailFromIssue(issue, body, locPrefix));
}

export function validationErrorFromZod(error: z.ZodError, body: unknown, locPrefix: (string | number)[] = ["body"]): RequestValidationError {
  return new RequestValidationError(error.issues.flatMap((issue) => detailFromIssue(issue, body, locPrefix)));
}
