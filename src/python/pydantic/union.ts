/**
 * Small helpers that make zod behave like the pydantic models NeMo Gym uses on
 * the wire, so that `parse(x)` yields exactly what pydantic's `model_dump()`
 * (and therefore FastAPI's response serializer) would produce.
 *
 * Mapping used throughout `src/protocol/`:
 * - pydantic `BaseModel` (extra="ignore")        → `z.object` (unknown keys stripped)
 * - openai-python `BaseModel` (extra="allow")    → `z.looseObject` (unknown keys kept, after declared ones)
 * - `extra="forbid"`                             → `z.strictObject`
 * - `TypedDict` params                           → `z.object` with `.optional()` for NotRequired keys
 *                                                  (absent stays absent: TypedDicts have no defaults)
 * - `Optional[X] = None` on a model              → `nullDefault(X)` (absent → `null` in the dump)
 * zod emits object keys in shape order followed by passthrough keys, which is
 * also pydantic's dump order (declared fields first, then extras).
 */
import { z } from "zod";
import { takeWalkParse, type QuietParse } from "./walk-parses.ts";

/** A model field declared `Optional[X] = None`: absent input dumps as `null`. */
export function nullDefault<T extends z.ZodType>(schema: T) {
  return schema.nullable().default(null);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One member of a pydantic-style ("smart mode") union. */
export interface UnionMember<S extends z.ZodType = z.ZodType> {
  /** Python class name; only used in error messages. */
  readonly name: string;
  readonly schema: S;
  /** Declared field names: pydantic ranks successful members by how many of these the input sets. */
  readonly fields: readonly string[];
  /** Fields without a default: an input lacking one cannot match, so the member is not tried. */
  readonly required: readonly string[];
  /** Values of the discriminator key this member accepts (empty: any). */
  readonly tags: readonly string[];
}

/** Build a union member from an object schema, reading its field names from the shape. */
export function member<S extends z.ZodObject>(name: string, schema: S, tagKey = "type"): UnionMember<S> {
  return memberOf(name, schema, schema, tagKey);
}

/** A member whose parsing schema wraps `object` (e.g. to add training variants). */
export function memberOf<S extends z.ZodType>(
  name: string,
  schema: S,
  object: z.ZodObject,
  tagKey = "type",
  extraFields: readonly string[] = [],
): UnionMember<S> {
  const shape = object.shape as Record<string, z.ZodType>;
  return {
    name,
    schema,
    fields: [...extraFields, ...Object.keys(shape)],
    required: Object.keys(shape).filter((key) => !shape[key].safeParse(undefined).success),
    tags: literalValues(shape[tagKey]),
  };
}

/** The literal values a (possibly defaulted/optional) discriminator schema accepts. */
export function literalValues(schema: unknown): string[] {
  let current = schema as z.ZodType | undefined;
  // Unwrap default/optional/nullable wrappers to reach the literal or enum.
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof z.ZodLiteral) return [...current.values].map(String);
    if (current instanceof z.ZodEnum) return current.options.map(String);
    const inner = (current as { unwrap?: () => z.ZodType }).unwrap;
    current = typeof inner === "function" ? inner.call(current) : undefined;
  }
  return [];
}

/** Re-raise a nested parse's (already final) issues from inside a transform. */
export function forwardIssues(target: z.core.$ZodRawIssue[], issues: readonly z.core.$ZodIssue[]): void {
  for (const issue of issues) target.push(issue as z.core.$ZodRawIssue);
}

/**
 * `schema` run on `input` from inside a transform: its output, or NOT_PARSED with its issues added to `target` (the
 * transform's ctx.issues). Exactly what `forwardIssues(target, schema.safeParse(input).error.issues)` forwards — each
 * issue finalized as safeParse finalizes it — minus the ZodError, an Error that captures a stack trace: inside a
 * smart union that is the success path too (every member that does not fit fails so, on every request).
 */
export function parseForwarding<T = unknown>(schema: z.ZodType, input: unknown, target: z.core.$ZodRawIssue[]): T | typeof NOT_PARSED {
  const { value, issues } = runZod(schema, input);
  if (issues.length === 0) return value as T;
  const config = z.core.config();
  for (const issue of issues) target.push(z.core.util.finalizeIssue(issue, SYNC, config) as z.core.$ZodRawIssue);
  return NOT_PARSED;
}
export const NOT_PARSED: unique symbol = Symbol("not parsed");
const SYNC = { async: false } as const;

/** safeParse's own run of `schema` on `input`: its value and raw issues, without the ZodError safeParse builds from them. */
function runZod(schema: z.ZodType, input: unknown): { value: unknown; issues: z.core.$ZodRawIssue[] } {
  const payload = (schema as unknown as { _zod: { run(payload: { value: unknown; issues: z.core.$ZodRawIssue[] }, ctx: typeof SYNC): unknown } })._zod.run({ value: input, issues: [] }, SYNC);
  if (payload instanceof Promise) throw new z.core.$ZodAsyncError();
  return payload as { value: unknown; issues: z.core.$ZodRawIssue[] };
}

const DOES_NOT_FIT: QuietParse = { success: false };

/**
 * zod's parse when only whether it fits matters: without the ZodError — an Error, with a stack trace — that a smart
 * union's members that do not fit would build on every request.
 */
export function quietParse(schema: z.ZodType, input: unknown): QuietParse {
  const { value, issues } = runZod(schema, input);
  return issues.length === 0 ? { success: true, data: value } : DOES_NOT_FIT;
}

type MemberOutput<M extends readonly UnionMember[]> = z.output<M[number]["schema"]>;
type MemberInput<M extends readonly UnionMember[]> = z.input<M[number]["schema"]>;

function countFieldsSet(input: unknown, fields: readonly string[]): number {
  if (!isPlainObject(input)) return 0;
  return fields.reduce((n, f) => (input[f] !== undefined ? n + 1 : n), 0);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? issue.path.join(".") + ": " : "";
  return where + issue.message;
}

/** What the lax validator (lax.ts) needs to run a smart union's members itself. */
export interface SmartUnionShape {
  readonly members: readonly UnionMember[];
  /** False for a member the input cannot match (wrong discriminator, a required field absent). */
  readonly plausible: (member: UnionMember, input: Record<string, unknown>) => boolean;
  readonly fieldsSet: (input: unknown, member: UnionMember) => number;
}

const smartUnions = new WeakMap<z.ZodType, SmartUnionShape>();
const stringOrLists = new WeakMap<z.ZodType, z.ZodType>();

/** The members of a schema built by `smartUnion`, or undefined for any other schema. */
export const smartUnionShape = (schema: z.ZodType): SmartUnionShape | undefined => smartUnions.get(schema);
/** The list item schema of a schema built by `stringOrList`, or undefined for any other schema. */
export const stringOrListItem = (schema: z.ZodType): z.ZodType | undefined => stringOrLists.get(schema);

function tagFitsMember(member: UnionMember, tag: unknown): boolean {
  return typeof tag !== "string" || member.tags.length === 0 || member.tags.includes(tag);
}

/**
 * A union that picks its member the way pydantic v2's default "smart" mode
 * does for model members: every member is tried, and among those that
 * validate, the one whose declared fields the input sets most often wins;
 * ties go to the earliest member. (zod's own `z.union` returns the first
 * success, which differs whenever members share a `type` default, as the
 * three Responses `message` models do.)
 */
export function smartUnion<const M extends readonly UnionMember[]>(
  label: string,
  members: M,
  tagKey = "type",
): z.ZodType<MemberOutput<M>, MemberInput<M>> {
  const schema = z.unknown().transform((input, ctx) => {
    if (!isPlainObject(input)) {
      ctx.issues.push({ code: "invalid_type", expected: "object", input, message: `${label} must be an object` });
      return z.NEVER;
    }
    const tag = input[tagKey];
    // Members whose discriminator differs, or whose required fields are absent, cannot
    // succeed: skipping them changes no result and avoids building their errors.
    const tagFits = (m: UnionMember) => tagFitsMember(m, tag);
    const plausible = (m: UnionMember) => tagFits(m) && m.required.every((key) => input[key] !== undefined);

    let best: { value: unknown; count: number } | undefined;
    for (const m of members) {
      if (!plausible(m)) continue;
      // Within a lax validation, its walk may have parsed this member on this very object already (walk-parses.ts).
      const result = takeWalkParse(m.schema, input) ?? quietParse(m.schema, input);
      if (!result.success) continue;
      const count = countFieldsSet(input, m.fields);
      if (!best || count > best.count) best = { value: result.data, count };
    }
    if (best) return best.value as MemberOutput<M>;

    // Error path only: collect every candidate's issues for the report.
    const failures = members
      .filter(tagFits)
      .map((m) => ({ member: m, issues: m.schema.safeParse(input).error?.issues ?? [] }))
      .filter((f) => f.issues.length > 0);
    if (failures.length === 0) {
      // Every member was skipped: the discriminator names no known variant.
      const values = [...new Set(members.flatMap((m) => m.tags))];
      ctx.issues.push({
        code: "invalid_value",
        values,
        input: tag,
        path: [tagKey],
        message: `Unknown ${label} ${tagKey} ${JSON.stringify(tag)}; expected one of ${values.join(", ")}`,
      });
      return z.NEVER;
    }
    // Focus the report on the members the input most plausibly meant.
    const tagged = failures.filter((f) => typeof tag === "string" && f.member.tags.includes(tag));
    const pool = tagged.length > 0 ? tagged : failures;
    const mostFieldsSet = Math.max(...pool.map((f) => countFieldsSet(input, f.member.fields)));
    const candidates = pool.filter((f) => countFieldsSet(input, f.member.fields) === mostFieldsSet);
    if (candidates.length === 1) {
      forwardIssues(ctx.issues, candidates[0].issues);
      return z.NEVER;
    }
    ctx.issues.push({
      code: "invalid_union",
      errors: candidates.map((c) => c.issues),
      input,
      message:
        `Input matches no ${label} variant: ` +
        candidates.map((c) => `${c.member.name} (${describeIssue(c.issues[0])})`).join("; "),
    });
    return z.NEVER;
  });
  smartUnions.set(schema, {
    members,
    plausible: (m, input) => tagFitsMember(m, input[tagKey]) && m.required.every((key) => input[key] !== undefined),
    fieldsSet: (input, m) => countFieldsSet(input, m.fields),
  });
  // The transform hides the members' input type; restore it for callers building requests.
  return schema as unknown as z.ZodType<MemberOutput<M>, MemberInput<M>>;
}

/**
 * `Union[str, List[X]]`. Equivalent to `z.union([z.string(), z.array(item)])`
 * but reports a bad list element at its own path instead of one opaque
 * union error.
 */
export function stringOrList<T extends z.ZodType>(item: T): z.ZodType<string | z.output<T>[], string | z.input<T>[]> {
  const list = z.array(item);
  const schema = z.unknown().transform((input, ctx) => {
    if (typeof input === "string") return input;
    if (!Array.isArray(input)) {
      const received = input === null ? "null" : typeof input;
      ctx.issues.push({
        code: "invalid_type",
        expected: "string | array",
        input,
        message: `Invalid input: expected string or array, received ${received}`,
      });
      return z.NEVER;
    }
    const parsed = parseForwarding<z.output<T>[]>(list, input, ctx.issues);
    return parsed === NOT_PARSED ? z.NEVER : parsed;
  });
  stringOrLists.set(schema, item);
  return schema as unknown as z.ZodType<string | z.output<T>[], string | z.input<T>[]>;
}
