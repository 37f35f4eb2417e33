// pydantic v2 lax mode (src/python/pydantic/lax.ts): one table of field type × input → accepted value or
// FastAPI's 422 detail, run through our validator and, where python3 has pydantic v2, through real pydantic
// models validated as FastAPI validates a body (`TypeAdapter(Model).validate_python(body, from_attributes=True)`).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { laxValidate, modelName, nullDefault, pythonEnum, typedDict, type PydanticError } from "../../src/python/pydantic/index.ts";

interface FieldType {
  zod: z.ZodType;
  /** The field's annotation in the Python model (names from the script's prelude). */
  py: string;
  /** The field's Python default, as source; absent: required. */
  pyDefault?: string;
}

const int = z.number().int();
const inner = modelName(z.object({ a: int }), "Inner");
const innerA = z.object({ type: z.literal("a"), v: int });
const innerB = z.object({ type: z.literal("b"), w: z.string() });

const FIELDS = {
  int: { zod: int, py: "int" },
  float: { zod: z.number(), py: "float" },
  bool: { zod: z.boolean(), py: "bool" },
  str: { zod: z.string(), py: "str" },
  optional_int: { zod: nullDefault(int), py: "Optional[int]", pyDefault: "None" },
  nullable_int: { zod: int.nullable(), py: "Optional[int]" },
  default_int: { zod: int.default(5), py: "int", pyDefault: "5" },
  list_int: { zod: z.array(int), py: "List[int]" },
  optional_list_str: { zod: nullDefault(z.array(z.string())), py: "Optional[List[str]]", pyDefault: "None" },
  dict_int: { zod: z.record(z.string(), int), py: "Dict[str, int]" },
  literal_ab: { zod: z.enum(["a", "b"]), py: 'Literal["a", "b"]' },
  literal_a: { zod: z.literal("a"), py: 'Literal["a"]' },
  literal_12: { zod: z.literal([1, 2]), py: "Literal[1, 2]" },
  enum_color: { zod: pythonEnum(z.enum(["red", "blue"])), py: "Color" },
  model: { zod: inner, py: "Inner" },
  model_list: { zod: z.array(inner), py: "List[Inner]" },
  forbid_model: { zod: z.strictObject({ a: int }), py: "StrictInner" },
  typed_dict: { zod: typedDict(z.object({ a: int })), py: "TD" },
  int_or_str: { zod: z.union([int, z.string()]), py: "Union[int, str]" },
  str_or_int: { zod: z.union([z.string(), int]), py: "Union[str, int]" },
  int_or_bool: { zod: z.union([int, z.boolean()]), py: "Union[int, bool]" },
  bool_or_int: { zod: z.union([z.boolean(), int]), py: "Union[bool, int]" },
  int_or_list: { zod: z.union([int, z.array(int)]), py: "Union[int, List[int]]" },
  model_or_int: { zod: z.union([inner, int]), py: "Union[Inner, int]" },
  literal_or_int: { zod: z.union([z.literal("a"), int]), py: 'Union[Literal["a"], int]' },
  int_none_str: { zod: z.union([int, z.null(), z.string()]), py: "Union[int, None, str]" },
  tagged: { zod: z.discriminatedUnion("type", [innerA, innerB]), py: 'Annotated[Union[A, B], Field(discriminator="type")]' },
  positive_int: { zod: int.gt(0), py: "Annotated[int, Field(gt=0)]" },
  at_least_1: { zod: int.gte(1), py: "Annotated[int, Field(ge=1)]" },
  at_most_1: { zod: int.lte(1), py: "Annotated[int, Field(le=1)]" },
  below_1: { zod: z.number().lt(1), py: "Annotated[float, Field(lt=1)]" },
  str_min_2: { zod: z.string().min(2), py: "Annotated[str, Field(min_length=2)]" },
  str_max_2: { zod: z.string().max(2), py: "Annotated[str, Field(max_length=2)]" },
  list_min_1: { zod: z.array(int).min(1), py: "Annotated[List[int], Field(min_length=1)]" },
} satisfies Record<string, FieldType>;

type FieldName = keyof typeof FIELDS;
type Detail = Omit<PydanticError, "loc"> & { loc: (string | number)[] };

interface Case {
  field: FieldName;
  /** The value of field `x`; `body` replaces the whole body instead. */
  input?: unknown;
  body?: Record<string, unknown>;
  /** The model forbids extra keys (`extra="forbid"`). */
  forbid?: boolean;
  /** Accepted: field x's dumped value. */
  ok?: unknown;
  /** Refused: FastAPI's `detail` list. */
  errors?: Detail[];
}

const INT_PARSING = "Input should be a valid integer, unable to parse string as an integer";
const BOOL_PARSING = "Input should be a valid boolean, unable to interpret input";
const x: (string | number)[] = ["body", "x"];
const err = (type: string, msg: string, input: unknown, loc: (string | number)[] = x, ctx?: Record<string, unknown>): Detail =>
  ctx === undefined ? { type, loc, msg, input } : { type, loc, msg, input, ctx };
const intParsing = (input: unknown, loc = x) => err("int_parsing", INT_PARSING, input, loc);
const ok = (field: FieldName, input: unknown, value: unknown = input): Case => ({ field, input, ok: value });
const bad = (field: FieldName, input: unknown, ...errors: Detail[]): Case => ({ field, input, errors });

const CASES: Case[] = [
  // int
  ok("int", 14), ok("int", "14", 14), ok("int", " 14 ", 14), ok("int", "1_000", 1000), ok("int", "+3", 3), ok("int", "-3", -3),
  ok("int", "01", 1), ok("int", "1.0", 1), ok("int", "1.00", 1), ok("int", "\t5\n", 5), ok("int", 1.0, 1), ok("int", true, 1), ok("int", false, 0),
  bad("int", "1__0", intParsing("1__0")), bad("int", "0x10", intParsing("0x10")), bad("int", "1.5", intParsing("1.5")),
  bad("int", "1e3", intParsing("1e3")), bad("int", "", intParsing("")), bad("int", "abc", intParsing("abc")), bad("int", "1.", intParsing("1.")),
  bad("int", "_1", intParsing("_1")), bad("int", "٣", intParsing("٣")),
  bad("int", 1.5, err("int_from_float", "Input should be a valid integer, got a number with a fractional part", 1.5)),
  bad("int", null, err("int_type", "Input should be a valid integer", null)), bad("int", [1], err("int_type", "Input should be a valid integer", [1])),
  bad("int", {}, err("int_type", "Input should be a valid integer", {})),
  // float
  ok("float", 3), ok("float", 1.5), ok("float", "1.5", 1.5), ok("float", " 2 ", 2), ok("float", "1_0.5", 10.5), ok("float", "1e3", 1000),
  ok("float", ".5", 0.5), ok("float", "5.", 5), ok("float", true, 1),
  bad("float", "abc", err("float_parsing", "Input should be a valid number, unable to parse string as a number", "abc")),
  bad("float", "1e", err("float_parsing", "Input should be a valid number, unable to parse string as a number", "1e")),
  bad("float", null, err("float_type", "Input should be a valid number", null)),
  bad("float", [], err("float_type", "Input should be a valid number", [])),
  // bool
  ...["true", "yes", "on", "1", "t", "y", "TRUE", "Yes"].map((input) => ok("bool", input, true)),
  ...["false", "no", "off", "0", "f", "n", "FALSE", "No"].map((input) => ok("bool", input, false)),
  ok("bool", 1, true), ok("bool", 0, false), ok("bool", true),
  bad("bool", " true", err("bool_parsing", BOOL_PARSING, " true")), bad("bool", "2", err("bool_parsing", BOOL_PARSING, "2")),
  bad("bool", "", err("bool_parsing", BOOL_PARSING, "")), bad("bool", 2, err("bool_parsing", BOOL_PARSING, 2)),
  bad("bool", 1.5, err("bool_type", "Input should be a valid boolean", 1.5)), bad("bool", null, err("bool_type", "Input should be a valid boolean", null)),
  // str
  ok("str", "14"), ok("str", ""),
  bad("str", 14, err("string_type", "Input should be a valid string", 14)), bad("str", 1.5, err("string_type", "Input should be a valid string", 1.5)),
  bad("str", true, err("string_type", "Input should be a valid string", true)), bad("str", null, err("string_type", "Input should be a valid string", null)),
  // Optional and defaults
  ok("optional_int", null), ok("optional_int", "5", 5), { field: "optional_int", body: {}, ok: null },
  bad("optional_int", "x", intParsing("x")),
  ok("nullable_int", null), { field: "nullable_int", body: {}, errors: [err("missing", "Field required", {}, x)] },
  { field: "default_int", body: {}, ok: 5 }, ok("default_int", "7", 7),
  ok("optional_list_str", ["a"]), ok("optional_list_str", null),
  bad("optional_list_str", ["a", 1], err("string_type", "Input should be a valid string", 1, [...x, 1])),
  // list and dict
  ok("list_int", ["1", 2], [1, 2]), ok("list_int", []),
  bad("list_int", ["1", 2, "x", 1.5], intParsing("x", [...x, 2]), err("int_from_float", "Input should be a valid integer, got a number with a fractional part", 1.5, [...x, 3])),
  bad("list_int", "1", err("list_type", "Input should be a valid list", "1")), bad("list_int", { a: 1 }, err("list_type", "Input should be a valid list", { a: 1 })),
  bad("list_int", null, err("list_type", "Input should be a valid list", null)),
  ok("dict_int", { a: "1" }, { a: 1 }),
  bad("dict_int", { a: "1", b: "x" }, intParsing("x", [...x, "b"])), bad("dict_int", [], err("dict_type", "Input should be a valid dictionary", [])),
  // Literal and Enum
  ok("literal_ab", "a"),
  bad("literal_ab", "c", err("literal_error", "Input should be 'a' or 'b'", "c", x, { expected: "'a' or 'b'" })),
  bad("literal_a", "c", err("literal_error", "Input should be 'a'", "c", x, { expected: "'a'" })),
  ok("literal_12", 2), bad("literal_12", "1", err("literal_error", "Input should be 1 or 2", "1", x, { expected: "1 or 2" })),
  ok("enum_color", "red"),
  bad("enum_color", "green", err("enum", "Input should be 'red' or 'blue'", "green", x, { expected: "'red' or 'blue'" })),
  bad("enum_color", 1, err("enum", "Input should be 'red' or 'blue'", 1, x, { expected: "'red' or 'blue'" })),
  // nested models, TypedDicts, extra, missing
  ok("model", { a: "2" }, { a: 2 }), ok("model", { a: 1, b: 2 }, { a: 1 }),
  bad("model", 5, err("model_attributes_type", "Input should be a valid dictionary or object to extract fields from", 5)),
  bad("model", [], err("model_attributes_type", "Input should be a valid dictionary or object to extract fields from", [])),
  bad("model", {}, err("missing", "Field required", {}, [...x, "a"])),
  bad("model_list", [{ a: 1 }, { a: "y" }], intParsing("y", [...x, 1, "a"])),
  bad("forbid_model", { a: 1, b: 2, c: 3 }, err("extra_forbidden", "Extra inputs are not permitted", 2, [...x, "b"]), err("extra_forbidden", "Extra inputs are not permitted", 3, [...x, "c"])),
  bad("forbid_model", { b: 2 }, err("missing", "Field required", { b: 2 }, [...x, "a"]), err("extra_forbidden", "Extra inputs are not permitted", 2, [...x, "b"])),
  bad("typed_dict", 5, err("dict_type", "Input should be a valid dictionary", 5)), bad("typed_dict", { a: "x" }, intParsing("x", [...x, "a"])),
  { field: "int", body: {}, errors: [err("missing", "Field required", {}, x)] },
  { field: "int", body: { y: 1 }, errors: [err("missing", "Field required", { y: 1 }, x)] },
  { field: "int", body: { x: "1", y: 2 }, forbid: true, errors: [err("extra_forbidden", "Extra inputs are not permitted", 2, ["body", "y"])] },
  { field: "int", body: { x: "1", y: 2 }, ok: 1 },
  // unions (smart mode: strict members first, then lax)
  ok("int_or_str", "14"), ok("int_or_str", 14), ok("str_or_int", 14), ok("int_or_bool", "1", 1), ok("bool_or_int", "1", true), ok("int_or_bool", true),
  ok("int_or_list", ["2"], [2]), ok("model_or_int", { a: "1" }, { a: 1 }), ok("int_none_str", null),
  bad("int_or_str", 1.5, err("int_from_float", "Input should be a valid integer, got a number with a fractional part", 1.5, [...x, "int"]), err("string_type", "Input should be a valid string", 1.5, [...x, "str"])),
  bad("int_or_str", [1], err("int_type", "Input should be a valid integer", [1], [...x, "int"]), err("string_type", "Input should be a valid string", [1], [...x, "str"])),
  bad("int_or_list", "x", intParsing("x", [...x, "int"]), err("list_type", "Input should be a valid list", "x", [...x, "list[int]"])),
  bad("model_or_int", "x", err("model_attributes_type", "Input should be a valid dictionary or object to extract fields from", "x", [...x, "Inner"]), intParsing("x", [...x, "int"])),
  bad("literal_or_int", "x", err("literal_error", "Input should be 'a'", "x", [...x, "literal['a']"], { expected: "'a'" }), intParsing("x", [...x, "int"])),
  bad("int_none_str", [], err("int_type", "Input should be a valid integer", [], [...x, "int"]), err("string_type", "Input should be a valid string", [], [...x, "str"])),
  // discriminated unions
  ok("tagged", { type: "a", v: "3" }, { type: "a", v: 3 }),
  bad("tagged", { type: "a", v: "x" }, intParsing("x", [...x, "a", "v"])),
  bad("tagged", { type: "c" }, err("union_tag_invalid", "Input tag 'c' found using 'type' does not match any of the expected tags: 'a', 'b'", { type: "c" }, x, { discriminator: "'type'", tag: "c", expected_tags: "'a', 'b'" })),
  bad("tagged", { w: "x" }, err("union_tag_not_found", "Unable to extract tag using discriminator 'type'", { w: "x" }, x, { discriminator: "'type'" })),
  bad("tagged", 5, err("model_attributes_type", "Input should be a valid dictionary or object to extract fields from", 5)),
  // constraints (checked after coercion; the error shows the input as sent)
  ok("positive_int", "3", 3),
  bad("positive_int", "0", err("greater_than", "Input should be greater than 0", "0", x, { gt: 0 })),
  bad("at_least_1", 0, err("greater_than_equal", "Input should be greater than or equal to 1", 0, x, { ge: 1 })),
  bad("at_most_1", 2, err("less_than_equal", "Input should be less than or equal to 1", 2, x, { le: 1 })),
  bad("below_1", 2, err("less_than", "Input should be less than 1", 2, x, { lt: 1 })),
  bad("str_min_2", "a", err("string_too_short", "String should have at least 2 characters", "a", x, { min_length: 2 })),
  bad("str_max_2", "abc", err("string_too_long", "String should have at most 2 characters", "abc", x, { max_length: 2 })),
  bad("list_min_1", [], err("too_short", "List should have at least 1 item after validation, not 0", [], x, { field_type: "List", min_length: 1, actual_length: 0 })),
];

const bodyOf = (c: Case): Record<string, unknown> => c.body ?? { x: c.input };
const label = (c: Case): string => `${c.field}${c.forbid ? " (extra=forbid)" : ""} ← ${JSON.stringify(bodyOf(c))}`;
const modelSchema = (c: Case) => (c.forbid ? z.strictObject({ x: FIELDS[c.field].zod }) : z.object({ x: FIELDS[c.field].zod }));

type Outcome = { ok: unknown } | { errors: Detail[] };
const expectedOutcome = (c: Case): Outcome => (c.errors ? { errors: c.errors } : { ok: c.ok });

function ourOutcome(c: Case): Outcome {
  const result = laxValidate(modelSchema(c), bodyOf(c));
  if (!result.success) return { errors: result.errors.map((e) => ({ ...e, loc: ["body", ...e.loc] })) };
  return { ok: (result.data as { x: unknown }).x };
}

describe("pydantic lax mode", () => {
  test(`the table (${CASES.length} cases) through laxValidate`, () => {
    for (const c of CASES) assert.deepEqual(ourOutcome(c), expectedOutcome(c), label(c));
  });

  test("a recursive (z.lazy) schema coerces at every depth", () => {
    interface Tree { n: number; children: Tree[] }
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ n: int, children: z.array(tree) }));
    const body = { n: "1", children: [{ n: "2", children: [{ n: 3.0, children: [] }] }] };
    assert.deepEqual(laxValidate(tree, body), { success: true, data: { n: 1, children: [{ n: 2, children: [{ n: 3, children: [] }] }] } });
    const refused = laxValidate(tree, { n: 1, children: [{ n: "x", children: [] }] });
    assert.deepEqual(refused, { success: false, errors: [{ type: "int_parsing", loc: ["children", 0, "n"], msg: INT_PARSING, input: "x" }] });
  });

  test("zod's defaults, transforms and refinements still run on the coerced input", () => {
    const schema = z
      .object({ n: int.transform((v) => v * 2), tag: z.string().default("t") })
      .superRefine((value, ctx) => {
        if (value.n > 10) ctx.addIssue({ code: "custom", path: ["n"], message: "Value error, too big" });
      });
    assert.deepEqual(laxValidate(schema, { n: "3" }), { success: true, data: { n: 6, tag: "t" } });
    const refused = laxValidate(schema, { n: "6" });
    assert.equal(refused.success, false);
    if (!refused.success) assert.deepEqual(refused.errors.map((e) => [e.type, e.loc, e.msg]), [["value_error", ["n"], "Value error, too big"]]);
  });

  const python = pydanticV2();
  test("the table agrees with real pydantic v2, case by case", { skip: python.skip }, () => {
    const dir = mkdtempSync(join(tmpdir(), "pydantic-lax-"));
    try {
      const script = join(dir, "validate.py");
      writeFileSync(script, PYTHON_SCRIPT);
      const request = CASES.map((c) => ({ py: FIELDS[c.field].py, default: (FIELDS[c.field] as FieldType).pyDefault ?? null, forbid: c.forbid === true, body: bodyOf(c) }));
      const run = spawnSync("python3", [script], { input: JSON.stringify(request), encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      const outcomes = JSON.parse(run.stdout) as Outcome[];
      CASES.forEach((c, i) => assert.deepEqual(outcomes[i], expectedOutcome(c), `pydantic: ${label(c)}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Whether python3 has pydantic v2; the reason to skip the comparison when it has not. */
function pydanticV2(): { skip: string | false } {
  const probe = spawnSync("python3", ["-c", "import pydantic; print(pydantic.VERSION)"], { encoding: "utf8" });
  if (probe.error) return { skip: `python3 is not available (${probe.error.message})` };
  if (probe.status !== 0) return { skip: "python3 has no pydantic (import pydantic failed)" };
  const version = probe.stdout.trim();
  return version.startsWith("2.") ? { skip: false } : { skip: `python3's pydantic is ${version}, not v2` };
}

// Validates each body as FastAPI validates a request body, and prints what FastAPI would put in its 422.
const PYTHON_SCRIPT = String.raw`
import json, sys
from enum import Enum
from typing import Annotated, Any, Dict, List, Literal, Optional, Union
from typing_extensions import TypedDict
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

class Inner(BaseModel):
    a: int

class StrictInner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int

class TD(TypedDict):
    a: int

class Color(str, Enum):
    red = "red"
    blue = "blue"

class A(BaseModel):
    type: Literal["a"]
    v: int

class B(BaseModel):
    type: Literal["b"]
    w: str

out = []
for case in json.load(sys.stdin):
    annotation = eval(case["py"])
    default = ... if case["default"] is None else eval(case["default"])
    config = ConfigDict(extra="forbid") if case["forbid"] else None
    Model = create_model("Model", __config__=config, x=(annotation, default))
    try:
        model = TypeAdapter(Model).validate_python(case["body"], from_attributes=True)
        out.append({"ok": model.model_dump(mode="json")["x"]})
    except ValidationError as error:
        details = error.errors(include_url=False)
        for detail in details:
            detail["loc"] = ["body", *detail["loc"]]
        out.append({"errors": json.loads(json.dumps(details, default=str))})
print(json.dumps(out))
`;
