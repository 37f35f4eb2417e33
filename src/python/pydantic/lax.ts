/**
 * Validation of an input against a zod schema the way pydantic v2 validates it in
 * lax mode, which is what FastAPI does to every NeMo Gym request body
 * (`TypeAdapter.validate_python(body, from_attributes=True)` on the parsed JSON):
 * `"14"` is an int, `"yes"` a bool, `1.0` an int, but `14` is not a str.
 *
 * The zod definition (`schema._zod.def`) is walked once per schema and compiled into
 * a tree of validators (cached per schema object). A validator coerces what pydantic
 * would coerce and reports, with pydantic's error types, messages, `loc` and `input`,
 * what pydantic would refuse. When the walk finds nothing wrong, zod itself parses the
 * coerced input, so defaults, transforms and refinements run exactly as before.
 */
import { z } from "zod";
import { detailsFromZodIssues, type ValidationDetail } from "../../protocol/errors.ts";
import { pythonStringRepr } from "../repr.ts";
import { jsonRepr } from "../json-value.ts";
import { isPlainObject, quietParse, smartUnionShape, stringOrListItem, type UnionMember } from "./union.ts";
import { rememberWalkParse, withWalkParses } from "./walk-parses.ts";

/** One pydantic error as FastAPI prints it (`errors(include_url=False)`). */
export type PydanticError = ValidationDetail;

export type LaxResult<T> = { success: true; data: T } | { success: false; errors: PydanticError[] };

type Loc = (string | number)[];

/**
 * A compiled validator: returns the coerced input and pushes what is wrong onto `errors`.
 * `strict` is pydantic's strict mode, which its smart unions try on every member first.
 */
type Validator = (input: unknown, loc: Loc, errors: PydanticError[], strict: boolean) => unknown;

const compiled = new WeakMap<z.ZodType, Validator>();
/** Object schemas that stand for a TypedDict (a non-dict input is `dict_type`, not `model_attributes_type`). */
const typedDicts = new WeakSet<z.ZodType>();
/** Enum schemas that stand for a Python `Enum` class (a bad value is `enum`, not `literal_error`). */
const pythonEnums = new WeakSet<z.ZodType>();
/** Python class names of model schemas, for the `loc` entries of union errors. */
const modelNames = new WeakMap<z.ZodType, string>();

/** Mark an object schema as a TypedDict. */
export function typedDict<S extends z.ZodObject>(schema: S): S {
  typedDicts.add(schema);
  return schema;
}

/** Mark a `z.enum` as a Python `Enum` class (pydantic reports a bad value as `enum`). */
export function pythonEnum<S extends z.ZodEnum>(schema: S): S {
  pythonEnums.add(schema);
  return schema;
}

/** Name a model schema as its Python class, which pydantic's union errors put in their `loc`. */
export function modelName<S extends z.ZodType>(schema: S, name: string): S {
  modelNames.set(schema, name);
  return schema;
}

/**
 * Validate `input` as pydantic lax mode would validate it against the model `schema`
 * stands for. Errors' `loc` start at the input (FastAPI prefixes `"body"`).
 */
export function laxValidate<S extends z.ZodType>(schema: S, input: unknown): LaxResult<z.output<S>> {
  return withWalkParses(() => walkThenParse(schema, input));
}

function walkThenParse<S extends z.ZodType>(schema: S, input: unknown): LaxResult<z.output<S>> {
  const errors: PydanticError[] = [];
  const coerced = validatorOf(schema)(input, [], errors, false);
  if (errors.length > 0) return { success: false, errors };
  const result = schema.safeParse(coerced, { reportInput: true });
  if (result.success) return { success: true, data: result.data };
  const withNonFinite = parseWithNonFinite(schema, coerced);
  if (withNonFinite) return { success: true, data: withNonFinite.data as z.output<S> };
  return { success: false, errors: detailsFromZodIssues(result.error.issues, coerced, []) };
}

/**
 * pydantic's float takes NaN and ±inf (a Python client's `json.dumps` writes them), zod's number does not. Once the
 * walk has accepted the value, zod sees a finite stand-in at each non-finite number, and the output gets the
 * number back at the same place. Only tried when zod refused, so ordinary bodies are not walked twice.
 */
function parseWithNonFinite(schema: z.ZodType, coerced: unknown): { data: unknown } | undefined {
  const swaps: { holder: Record<PropertyKey, unknown>; key: PropertyKey; path: PropertyKey[]; value: number }[] = [];
  const pending: { node: unknown; path: PropertyKey[] }[] = [{ node: coerced, path: [] }];
  while (pending.length > 0) {
    const { node, path } = pending.pop()!;
    if (typeof node !== "object" || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      const at = Array.isArray(node) ? Number(key) : key;
      if (typeof value === "number" && !Number.isFinite(value)) swaps.push({ holder: node as Record<PropertyKey, unknown>, key: at, path: [...path, at], value });
      else if (typeof value === "object" && value !== null) pending.push({ node: value, path: [...path, at] });
    }
  }
  if (swaps.length === 0) return undefined;
  for (const swap of swaps) swap.holder[swap.key] = Number.isNaN(swap.value) ? 0 : Math.sign(swap.value) * Number.MAX_VALUE;
  let result: ReturnType<typeof schema.safeParse>;
  try {
    result = schema.safeParse(coerced);
  } finally {
    for (const swap of swaps) swap.holder[swap.key] = swap.value;
  }
  if (!result.success) return undefined;
  for (const { path, value } of swaps) {
    let node: unknown = result.data;
    for (const key of path.slice(0, -1)) node = typeof node === "object" && node !== null ? (node as Record<PropertyKey, unknown>)[key] : undefined;
    if (typeof node === "object" && node !== null && typeof (node as Record<PropertyKey, unknown>)[path.at(-1)!] === "number") (node as Record<PropertyKey, unknown>)[path.at(-1)!] = value;
  }
  return { data: result.data };
}

function validatorOf(schema: z.ZodType): Validator {
  let validator = compiled.get(schema);
  if (!validator) {
    // Placeholder first: a recursive schema reaches itself while compiling.
    compiled.set(schema, (input, loc, errors, strict) => validatorOf(schema)(input, loc, errors, strict));
    validator = compile(schema);
    compiled.set(schema, validator);
  }
  return validator;
}

type Def = Record<string, any> & { type: string; checks?: unknown[] };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const hasChecks = (schema: z.ZodType): boolean => (defOf(schema).checks?.length ?? 0) > 0;
/** An object field the input may leave out (optional, or filled by a default). */
const mayBeAbsent = (schema: z.ZodType): boolean => (schema as unknown as { _zod: { optin?: string } })._zod.optin !== undefined;

const error = (type: string, loc: Loc, msg: string, input: unknown, ctx?: Record<string, unknown>): PydanticError =>
  ctx === undefined ? { type, loc, msg, input } : { type, loc, msg, input, ctx };

/**
 * Above 0 while a smart union tries its members: a member's errors are then only counted (did it fit?), never read,
 * so a failed zod check pushes QUIET_ERROR instead of building pydantic's errors from a ZodError — the costliest
 * part of validating a body whose union members mostly do not fit. When no member fits, pickMember tries them
 * again with quiet at 0 for the real errors (the error path only).
 */
let quiet = 0;
const QUIET_ERROR: PydanticError = { type: "quiet", loc: [], msg: "", input: undefined };

/** Run zod on a value the walk cannot look into, reporting its issues at `loc`. */
function zodChecked(schema: z.ZodType): Validator {
  return (input, loc, errors) => {
    // Inside a smart union only whether it fits counts; elsewhere the issues are the report.
    if (quiet > 0) {
      const fits = quietParse(schema, input);
      rememberWalkParse(schema, input, fits);
      if (!fits.success) errors.push(QUIET_ERROR);
      return input;
    }
    const result = schema.safeParse(input, { reportInput: true });
    rememberWalkParse(schema, input, result.success ? { success: true, data: result.data } : { success: false });
    if (!result.success) errors.push(...detailsFromZodIssues(result.error.issues, input, loc));
    return input;
  };
}

/** A scalar's own constraints (gt, min_length, …), checked on the coerced value; errors show the original input. */
function withConstraints(schema: z.ZodType, coerce: Validator): Validator {
  if (!hasChecks(schema)) return coerce;
  return (input, loc, errors, strict) => {
    const before = errors.length;
    const value = coerce(input, loc, errors, strict);
    if (errors.length > before) return value;
    const result = schema.safeParse(value);
    if (!result.success) {
      if (quiet > 0) errors.push(QUIET_ERROR);
      else errors.push(...detailsFromZodIssues(result.error.issues, input, loc).map((d) => ({ ...d, input })));
    }
    return value;
  };
}

function compile(schema: z.ZodType): Validator {
  const union = smartUnionShape(schema);
  if (union) return smartUnionValidator(schema, union);
  const listItem = stringOrListItem(schema);
  if (listItem) return stringOrListValidator(schema, listItem);

  const def = defOf(schema);
  // `z.coerce.*` is its author's explicit choice of zod's own coercion (String(12345), Number("1e3")): zod decides.
  if (def.coerce === true) return zodChecked(schema);
  switch (def.type) {
    case "string":
      return withConstraints(schema, stringValidator);
    case "number":
      return withConstraints(schema, isIntSchema(def) ? intValidator : floatValidator);
    case "boolean":
      return withConstraints(schema, boolValidator);
    case "null":
      return (input, loc, errors) => {
        if (input !== null) errors.push(error("none_required", loc, "Input should be None", input));
        return input;
      };
    case "literal":
      return literalValidator(def.values as unknown[], "literal_error");
    case "enum":
      return literalValidator(Object.values(def.entries as Record<string, unknown>), pythonEnums.has(schema) ? "enum" : "literal_error");
    case "optional":
      return wrapperValidator(schema, def.innerType, (input) => input === undefined);
    case "nullable":
      return wrapperValidator(schema, def.innerType, (input) => input === null);
    case "default":
    case "prefault":
      return wrapperValidator(schema, def.innerType, (input) => input === undefined);
    case "readonly":
    case "nonoptional":
      return wrapperValidator(schema, def.innerType, () => false);
    case "lazy":
      return (input, loc, errors, strict) => validatorOf(def.getter() as z.ZodType)(input, loc, errors, strict);
    case "array":
      return arrayValidator(schema, def.element as z.ZodType);
    case "record":
      return recordValidator(schema, def.valueType as z.ZodType);
    case "object":
      return objectValidator(schema, def);
    case "union":
      return def.discriminator ? discriminatedValidator(def.options as z.ZodType[], def.discriminator as string) : unionValidator(def.options as z.ZodType[]);
    case "pipe":
      return pipeValidator(def.in as z.ZodType, def.out as z.ZodType, schema);
    case "intersection":
      return intersectionValidator(def.left as z.ZodType, def.right as z.ZodType);
    case "any":
    case "unknown":
      return hasChecks(schema) ? zodChecked(schema) : (input) => input;
    default:
      return zodChecked(schema);
  }
}

function isIntSchema(def: Def): boolean {
  const isIntFormat = (format: unknown) => typeof format === "string" && format.includes("int");
  if (isIntFormat(def.format)) return true;
  return (def.checks ?? []).some((check) => isIntFormat((check as { _zod?: { def?: { format?: unknown } } })._zod?.def?.format));
}

// --- scalars -----------------------------------------------------------------------------------

const stringValidator: Validator = (input, loc, errors) => {
  if (typeof input !== "string") errors.push(error("string_type", loc, "Input should be a valid string", input));
  return input;
};

/** pydantic-core's integer strings: ASCII digits, single `_` between digits, optional sign, `.0…` allowed. */
const INT_TEXT = /^[+-]?[0-9](?:_?[0-9])*(?:\.0+)?$/;
/** pydantic-core's float strings (Python float syntax with ASCII digits). */
const DIGITS = "[0-9](?:_?[0-9])*";
const FLOAT_TEXT = new RegExp(`^[+-]?(?:inf|infinity|nan|(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?)$`, "i");

const INT_TYPE = "Input should be a valid integer";
const intValidator: Validator = (input, loc, errors, strict) => {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) errors.push(error("finite_number", loc, "Input should be a finite number", input));
    else if (!Number.isInteger(input)) errors.push(error("int_from_float", loc, `${INT_TYPE}, got a number with a fractional part`, input));
    return input;
  }
  if (!strict && typeof input === "boolean") return input ? 1 : 0;
  if (!strict && typeof input === "string") {
    const text = input.trim();
    if (INT_TEXT.test(text)) return Number(text.replace(/_/g, "").replace(/\.0+$/, ""));
    errors.push(error("int_parsing", loc, `${INT_TYPE}, unable to parse string as an integer`, input));
    return input;
  }
  errors.push(error("int_type", loc, INT_TYPE, input));
  return input;
};

const FLOAT_TYPE = "Input should be a valid number";
const floatValidator: Validator = (input, loc, errors, strict) => {
  if (typeof input === "number") return input;
  if (!strict && typeof input === "boolean") return input ? 1 : 0;
  if (!strict && typeof input === "string") {
    const text = input.trim();
    if (FLOAT_TEXT.test(text)) {
      const lower = text.toLowerCase().replace(/^\+/, "");
      if (/^-?inf(inity)?$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
      if (/^-?nan$/.test(lower)) return NaN;
      return Number(text.replace(/_/g, ""));
    }
    errors.push(error("float_parsing", loc, `${FLOAT_TYPE}, unable to parse string as a number`, input));
    return input;
  }
  errors.push(error("float_type", loc, FLOAT_TYPE, input));
  return input;
};

const TRUE_TEXTS = new Set(["true", "yes", "on", "1", "t", "y"]);
const FALSE_TEXTS = new Set(["false", "no", "off", "0", "f", "n"]);
const BOOL_PARSING = "Input should be a valid boolean, unable to interpret input";
const boolValidator: Validator = (input, loc, errors, strict) => {
  if (typeof input === "boolean") return input;
  if (!strict && typeof input === "string") {
    const text = input.toLowerCase();
    if (TRUE_TEXTS.has(text)) return true;
    if (FALSE_TEXTS.has(text)) return false;
    errors.push(error("bool_parsing", loc, BOOL_PARSING, input));
    return input;
  }
  if (!strict && typeof input === "number" && Number.isInteger(input)) {
    if (input === 0 || input === 1) return input === 1;
    errors.push(error("bool_parsing", loc, BOOL_PARSING, input));
    return input;
  }
  errors.push(error("bool_type", loc, "Input should be a valid boolean", input));
  return input;
};

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`: pydantic's list of expected literal values. */
export function expectedList(values: readonly unknown[]): string {
  const shown = values.map(jsonRepr);
  return shown.length > 1 ? `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}` : (shown[0] ?? "");
}

function literalValidator(values: readonly unknown[], type: "literal_error" | "enum"): Validator {
  const allowed = new Set(values);
  const expected = expectedList(values);
  return (input, loc, errors) => {
    if (!allowed.has(input)) errors.push(error(type, loc, `Input should be ${expected}`, input, { expected }));
    return input;
  };
}

// --- containers --------------------------------------------------------------------------------

/** optional / nullable / default: `passes(input)` says when the wrapper itself accepts the input as is. */
function wrapperValidator(schema: z.ZodType, inner: z.ZodType, passes: (input: unknown) => boolean): Validator {
  const check = hasChecks(schema) ? zodChecked(schema) : undefined;
  return (input, loc, errors, strict) => {
    if (passes(input)) return input;
    const before = errors.length;
    const value = validatorOf(inner)(input, loc, errors, strict);
    if (check && errors.length === before) check(value, loc, errors, strict);
    return value;
  };
}

/** Issues of a container's own checks (min length, refinements) on the coerced value, its items' issues excluded. */
function ownChecks(schema: z.ZodType): ((value: unknown, input: unknown, loc: Loc, errors: PydanticError[]) => void) | undefined {
  if (!hasChecks(schema)) return undefined;
  return (value, input, loc, errors) => {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return;
    if (quiet > 0) {
      // Whether the container's own checks failed, not why (its items' issues are counted where they are).
      if (result.error.issues.some((issue) => issue.path.length === 0)) errors.push(QUIET_ERROR);
      return;
    }
    const own = result.error.issues.filter((issue) => issue.path.length === 0);
    errors.push(...detailsFromZodIssues(own, value, loc).map((d) => ({ ...d, input })));
  };
}

function arrayValidator(schema: z.ZodType, element: z.ZodType): Validator {
  const checks = ownChecks(schema);
  return (input, loc, errors, strict) => {
    if (!Array.isArray(input)) {
      errors.push(error("list_type", loc, "Input should be a valid list", input));
      return input;
    }
    const before = errors.length;
    const item = validatorOf(element);
    const value = input.map((entry, index) => item(entry, [...loc, index], errors, strict));
    if (checks && errors.length === before) checks(value, input, loc, errors);
    return value;
  };
}

function recordValidator(schema: z.ZodType, valueType: z.ZodType): Validator {
  const checks = ownChecks(schema);
  return (input, loc, errors, strict) => {
    if (!isPlainObject(input)) {
      errors.push(error("dict_type", loc, "Input should be a valid dictionary", input));
      return input;
    }
    const before = errors.length;
    const item = validatorOf(valueType);
    const value: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(input)) value[key] = item(entry, [...loc, key], errors, strict);
    if (checks && errors.length === before) checks(value, input, loc, errors);
    return value;
  };
}

function objectValidator(schema: z.ZodType, def: Def): Validator {
  const shape = def.shape as Record<string, z.ZodType>;
  const keys = Object.keys(shape);
  const catchall = def.catchall as z.ZodType | undefined;
  const forbidsExtra = catchall !== undefined && defOf(catchall).type === "never";
  const validatesExtra = catchall !== undefined && !forbidsExtra && !["unknown", "any"].includes(defOf(catchall).type);
  const notADict = typedDicts.has(schema)
    ? (input: unknown, loc: Loc) => error("dict_type", loc, "Input should be a valid dictionary", input)
    : (input: unknown, loc: Loc) => error("model_attributes_type", loc, "Input should be a valid dictionary or object to extract fields from", input);
  return (input, loc, errors, strict) => {
    if (!isPlainObject(input)) {
      errors.push(notADict(input, loc));
      return input;
    }
    const value: Record<string, unknown> = { ...input };
    for (const key of keys) {
      const field = shape[key]!;
      if (!Object.hasOwn(input, key) || input[key] === undefined) {
        if (!mayBeAbsent(field)) errors.push(error("missing", [...loc, key], "Field required", input));
        continue;
      }
      value[key] = validatorOf(field)(input[key], [...loc, key], errors, strict);
    }
    if (forbidsExtra || validatesExtra) {
      for (const key of Object.keys(input)) {
        if (Object.hasOwn(shape, key)) continue;
        if (forbidsExtra) errors.push(error("extra_forbidden", [...loc, key], "Extra inputs are not permitted", input[key]));
        else value[key] = validatorOf(catchall!)(input[key], [...loc, key], errors, strict);
      }
    }
    return value;
  };
}

function pipeValidator(first: z.ZodType, second: z.ZodType, schema: z.ZodType): Validator {
  // `z.preprocess(f, b)` rewrites the input before b sees it, and zod runs f again on whatever is returned here:
  // coercing b's fields would mean running f twice, so such a pipe is zod's to validate as a whole.
  if (defOf(first).type === "transform") return zodChecked(schema);
  const inner = validatorOf(first);
  if (defOf(second).type !== "transform") {
    // `a.pipe(b)` (a before-validator, then the model): b validates what a let through.
    return (input, loc, errors, strict) => {
      const before = errors.length;
      const value = inner(input, loc, errors, strict);
      return errors.length === before ? validatorOf(second)(value, loc, errors, strict) : value;
    };
  }
  const whole = zodChecked(schema);
  return (input, loc, errors, strict) => {
    const before = errors.length;
    const value = inner(input, loc, errors, strict);
    // The transform's own failures (a smart union's, a refinement's) count too, at this level.
    if (errors.length === before) whole(value, loc, errors, strict);
    return value;
  };
}

/**
 * `A.and(B)`, how a server adds its own fields to a base model (pydantic: a subclass). The right side
 * validates what the left coerced, so each side's coercions survive into the merged input.
 */
function intersectionValidator(left: z.ZodType, right: z.ZodType): Validator {
  return (input, loc, errors, strict) => {
    const value = validatorOf(left)(input, loc, errors, strict);
    // Not a dict: one error for the model, not one per side.
    return isPlainObject(input) ? validatorOf(right)(value, loc, errors, strict) : value;
  };
}

// --- unions ------------------------------------------------------------------------------------

const memberTags = new WeakMap<z.ZodType, string>();
/** memberTag, computed once per member schema (a union builds its members' `loc` on every call). */
function cachedMemberTag(schema: z.ZodType): string {
  let tag = memberTags.get(schema);
  if (tag === undefined) memberTags.set(schema, (tag = memberTag(schema)));
  return tag;
}

/** The `loc` entry pydantic gives a union member in the union's errors (`int`, `list[str]`, `Model`). */
function memberTag(schema: z.ZodType): string {
  const named = modelNames.get(schema);
  if (named) return named;
  const def = defOf(schema);
  switch (def.type) {
    case "string":
      return "str";
    case "number":
      return isIntSchema(def) ? "int" : "float";
    case "boolean":
      return "bool";
    case "null":
      return "none";
    case "array":
      return `list[${memberTag(def.element)}]`;
    case "record":
      return `dict[str,${memberTag(def.valueType)}]`;
    case "literal":
      return `literal[${(def.values as unknown[]).map(jsonRepr).join(",")}]`;
    case "enum":
      return `literal[${Object.values(def.entries as Record<string, unknown>).map(jsonRepr).join(",")}]`;
    case "nullable":
      return `nullable[${memberTag(def.innerType)}]`;
    case "optional":
    case "default":
    case "prefault":
    case "readonly":
      return memberTag(def.innerType);
    case "object":
      return "Model";
    case "any":
    case "unknown":
      return "any";
    default:
      return def.type;
  }
}

/** Count of an object member's declared fields the input sets: pydantic prefers the member using most of them. */
function fieldsSetFor(schema: z.ZodType, input: unknown): number {
  let def = defOf(schema);
  while (["optional", "nullable", "default", "prefault", "readonly"].includes(def.type)) def = defOf(def.innerType);
  if (def.type !== "object" || !isPlainObject(input)) return -1;
  return Object.keys(def.shape as object).filter((key) => input[key] !== undefined).length;
}

/**
 * pydantic's smart union: strict validation of every member first, then lax; among the
 * successes of a round, the member setting most declared fields wins, ties to the first.
 */
function pickMember<M>(
  candidates: readonly M[],
  run: (member: M, errors: PydanticError[], strict: boolean) => unknown,
  fieldsSet: (member: M) => number,
): { value: unknown } | { failures: { member: M; errors: PydanticError[] }[] } {
  quiet++;
  let outcome: ReturnType<typeof pickMemberRounds<M>>;
  try {
    outcome = pickMemberRounds(candidates, run, fieldsSet);
  } finally {
    quiet--;
  }
  // No member fits: the same rounds again, for the errors (inside an outer union's try, only counting matters).
  if ("value" in outcome || quiet > 0) return outcome;
  return pickMemberRounds(candidates, run, fieldsSet);
}

function pickMemberRounds<M>(
  candidates: readonly M[],
  run: (member: M, errors: PydanticError[], strict: boolean) => unknown,
  fieldsSet: (member: M) => number,
): { value: unknown } | { failures: { member: M; errors: PydanticError[] }[] } {
  let failures: { member: M; errors: PydanticError[] }[] = [];
  for (const strict of [true, false]) {
    failures = [];
    let best: { value: unknown; count: number } | undefined;
    for (const member of candidates) {
      const errors: PydanticError[] = [];
      const value = run(member, errors, strict);
      if (errors.length > 0) {
        failures.push({ member, errors });
        continue;
      }
      const count = fieldsSet(member);
      if (!best || count > best.count) best = { value, count };
    }
    if (best) return { value: best.value };
  }
  return { failures };
}

function unionValidator(options: readonly z.ZodType[]): Validator {
  // Optional[X] is a nullable X to pydantic: None passes, other errors are X's own, untagged.
  const allowsNull = options.some((option) => defOf(option).type === "null");
  const members = options.filter((option) => defOf(option).type !== "null");
  if (members.length === 1) {
    const only = members[0]!;
    return (input, loc, errors, strict) => (allowsNull && input === null ? input : validatorOf(only)(input, loc, errors, strict));
  }
  return (input, loc, errors, strict) => {
    if (allowsNull && input === null) return input;
    const outcome = pickMember(
      members,
      (member, memberErrors, memberStrict) => validatorOf(member)(input, [...loc, cachedMemberTag(member)], memberErrors, strict || memberStrict),
      (member) => fieldsSetFor(member, input),
    );
    if ("value" in outcome) return outcome.value;
    for (const failure of outcome.failures) errors.push(...failure.errors);
    return input;
  };
}

function discriminatedValidator(options: readonly z.ZodType[], discriminator: string): Validator {
  const byTag = new Map<unknown, z.ZodType>();
  for (const option of options) {
    const shape = defOf(option).shape as Record<string, z.ZodType> | undefined;
    const tagSchema = shape?.[discriminator];
    if (!tagSchema) continue;
    const tagDef = defOf(tagSchema);
    const values = tagDef.type === "literal" ? (tagDef.values as unknown[]) : tagDef.type === "enum" ? Object.values(tagDef.entries) : [];
    for (const value of values) if (!byTag.has(value)) byTag.set(value, option);
  }
  const expectedTags = [...byTag.keys()].map(jsonRepr).join(", ");
  const quotedKey = pythonStringRepr(discriminator);
  return (input, loc, errors, strict) => {
    if (!isPlainObject(input)) {
      errors.push(error("model_attributes_type", loc, "Input should be a valid dictionary or object to extract fields from", input));
      return input;
    }
    const tag = input[discriminator];
    if (tag === undefined) {
      errors.push(error("union_tag_not_found", loc, `Unable to extract tag using discriminator ${quotedKey}`, input, { discriminator: quotedKey }));
      return input;
    }
    const member = byTag.get(tag);
    if (!member) {
      const shown = typeof tag === "string" ? tag : jsonRepr(tag);
      errors.push(
        error("union_tag_invalid", loc, `Input tag ${jsonRepr(tag)} found using ${quotedKey} does not match any of the expected tags: ${expectedTags}`, input, {
          discriminator: quotedKey,
          tag: shown,
          expected_tags: expectedTags,
        }),
      );
      return input;
    }
    return validatorOf(member)(input, [...loc, String(tag)], errors, strict);
  };
}

/**
 * A `smartUnion` (the Responses item and content unions): its members run lax like any
 * model. When none validates, the union's own report (built for these unions) stands.
 */
function smartUnionValidator(schema: z.ZodType, shape: NonNullable<ReturnType<typeof smartUnionShape>>): Validator {
  const report = zodChecked(schema);
  return (input, loc, errors, strict) => {
    if (!isPlainObject(input)) return report(input, loc, errors, strict);
    const candidates = shape.members.filter((member) => shape.plausible(member, input));
    const outcome = pickMember<UnionMember>(
      candidates,
      (member, memberErrors, memberStrict) => validatorOf(member.schema)(input, loc, memberErrors, strict || memberStrict),
      (member) => shape.fieldsSet(input, member),
    );
    if ("value" in outcome) return outcome.value;
    return report(input, loc, errors, strict);
  };
}

/** `Union[str, List[X]]`: a string as is, a list item by item; anything else gets the schema's own report. */
function stringOrListValidator(schema: z.ZodType, item: z.ZodType): Validator {
  const report = zodChecked(schema);
  return (input, loc, errors, strict) => {
    if (typeof input === "string") return input;
    if (!Array.isArray(input)) return report(input, loc, errors, strict);
    const validate = validatorOf(item);
    return input.map((entry, index) => validate(entry, [...loc, index], errors, strict));
  };
}
