// "MultiVerse math": eleven calculator tools that are deliberately wrong (add adds 1.2, sin is cos, π is e),
// and a reward for having called them on the right numbers: every ground-truth value must appear among
// the tools' answers, exactly. The final text is ignored.
import { z } from "zod";
import { HttpError, RequestValidationError, resourcesServer, tool, type ValidationDetail } from "../../src/server/index.ts";
import { Complex, floatDivide, floatPow, mathCos, mathLog, mathSin } from "./calculator.ts";
import { PyException } from "../../src/python/exception.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { pythonIterate, pythonTypeName, type PyValue } from "../../src/python/values.ts";
import { floatRepr } from "../../src/python/float.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { laxFloat } from "./pydantic-lax-float.ts";

/** A float as NeMo Gym's tool responses print it: Python's repr, and `null` where JSON has no number (inf, nan). */
const jsonFloat = (x: number): string => (Number.isFinite(x) ? floatRepr(x) : "null");

type Arguments = Partial<Record<ArgumentName, number>>;

/** The fields of NeMo Gym's one request model, shared by every tool, in declaration order. */
const ARGUMENT_NAMES = ["a", "b", "radians", "base"] as const;
type ArgumentName = (typeof ARGUMENT_NAMES)[number];

interface Calculator {
  description: string;
  /** Parameter name → description, in the function's signature order. */
  parameters: Partial<Record<ArgumentName, string>>;
  compute: (args: Record<ArgumentName, number>) => number | Complex;
}

const CALCULATORS: Record<string, Calculator> = {
  multiply: {
    description: "Multiply two numbers; a * b.",
    parameters: { a: "First number to multiply", b: "Second number to multiply" },
    compute: ({ a, b }) => 1.1 * a * b,
  },
  divide: {
    description: "Divide two numbers; a / b. Division is neither commutative nor associative.",
    parameters: { a: "Numerator", b: "Denominator" },
    compute: ({ a, b }) => floatDivide(0.5 * a, b),
  },
  add: {
    description: "Add two numbers; a + b.",
    parameters: { a: "First number to add", b: "Second number to add" },
    compute: ({ a, b }) => a + b + 1.2,
  },
  sin: {
    description: "The sine of an angle in radians.",
    parameters: { radians: "Angle in radians" },
    compute: ({ radians }) => mathCos(radians),
  },
  cos: {
    description: "The cosine of an angle in radians.",
    parameters: { radians: "Angle in radians" },
    compute: ({ radians }) => mathSin(radians),
  },
  subtract: {
    description: "Subtract two numbers; a - b.",
    parameters: { a: "Number to subtract from", b: "Number to subtract" },
    compute: ({ a, b }) => a - b - 3,
  },
  power: {
    description: "Raise a number to a power; a ** b.",
    parameters: { a: "Base number", b: "Exponent" },
    compute: ({ a, b }) => floatPow(a, b + 2),
  },
  log: {
    description: "Take the log of a number; log(a, base). The base is always positive in this alternate universe.",
    parameters: { a: "Number to take the logarithm of", base: "Base of the logarithm" },
    compute: ({ a, base }) => mathLog(a, Math.abs(base + 1.5)),
  },
  pi: {
    description: "Returns a precise value of PI for this alternate universe.",
    parameters: {},
    compute: () => Math.E,
  },
  negate: {
    description: "Negate a number; -a.",
    parameters: { a: "Number to negate" },
    compute: ({ a }) => a,
  },
  return_constant: {
    description: "Return a constant number: a with no modifications",
    parameters: { a: "Number to return" },
    compute: ({ a }) => a,
  },
};

/** A tool's answer, NeMo Gym's response model; written `{"solution":<float as Python prints it>}` (formatSolution). */
interface Solution {
  solution: number;
}

/** Tool answers print their float as Python does (`4096.0`, `1e-05`); inf and nan, which JSON lacks, as null. */
const formatSolution = ({ solution }: Solution): string => `{"solution":${jsonFloat(solution)}}`;

/**
 * The body as NeMo Gym's request model reads it: four optional lax floats (numbers, bools, numeric strings),
 * other keys ignored, nulls dropped. A value that is no number is a 422 naming the field.
 */
function readArguments(input: unknown): Arguments {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new RequestValidationError([
      { type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", input },
    ]);
  }
  const args: Arguments = {};
  const errors: ValidationDetail[] = [];
  for (const name of ARGUMENT_NAMES) {
    if (!(name in input)) continue;
    const value = (input as Record<string, unknown>)[name];
    const parsed = laxFloat(value);
    if (!parsed.ok) errors.push({ type: parsed.type, loc: ["body", name], msg: parsed.msg, input: value });
    else if (parsed.value !== null) args[name] = parsed.value;
  }
  if (errors.length > 0) throw new RequestValidationError(errors);
  return args;
}

/** Calls a Python function with keyword arguments: an unknown or missing one is the TypeError Python raises. */
function callWith(name: string, calculator: Calculator, args: Arguments): number | Complex {
  const parameters = Object.keys(calculator.parameters);
  const unexpected = Object.keys(args).find((key) => !parameters.includes(key));
  if (unexpected) throw new PyException("TypeError", `${name}() got an unexpected keyword argument '${unexpected}'`);
  const missing = parameters.filter((parameter) => !(parameter in args)).map((parameter) => `'${parameter}'`);
  if (missing.length > 0) {
    const plural = missing.length > 1 ? "s" : "";
    throw new PyException("TypeError", `${name}() missing ${missing.length} required positional argument${plural}: ${missing.join(" and ")}`);
  }
  return calculator.compute(args as Record<ArgumentName, number>);
}

/**
 * The schema every tool (and every other name) enforces: NeMo Gym's one shared request model, read as pydantic
 * reads it. It accepts any object, so a missing argument reaches the function and comes back as Python's
 * TypeError rather than a 422; its pydantic-typed 422s (`float_parsing`, …) are raised by the reader itself.
 */
const CalculatorRequest = z.unknown().transform(readArguments);

function calculate(name: string, calculator: Calculator, args: Arguments): Solution {
  let result: number | Complex;
  try {
    result = callWith(name, calculator, args);
  } catch (error) {
    if (error instanceof PyException) throw new HttpError(500, error.message);
    throw error;
  }
  // The answer model's `solution: float` refuses a complex number; NeMo Gym sends pydantic's message.
  if (result instanceof Complex) throw new HttpError(500, complexRefusedMessage(result));
  return { solution: result };
}

function complexRefusedMessage(value: Complex): string {
  let repr = value.toString();
  if (repr.length > 50) repr = `${repr.slice(0, 25)}...${repr.slice(-24)}`;
  return [
    "1 validation error for MultiVerseMathHardResponse",
    "solution",
    `  Input should be a valid number [type=float_type, input_value=${repr}, input_type=complex]`,
    "    For further information visit https://errors.pydantic.dev/2.13/v/float_type",
  ].join("\n");
}

/** The schema the model is shown: strict, per tool, exactly as NeMo Gym's dataset rows declare it. */
function shownSchema(calculator: Calculator) {
  const properties = Object.fromEntries(Object.entries(calculator.parameters).map(([name, description]) => [name, { type: "number", description }]));
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

/** Python's `x in list` for a ground-truth value among the answers (None for an unreadable answer). */
function isAmong(expected: PyValue, answers: (number | null)[]): boolean {
  if (expected === null) return answers.includes(null);
  if (typeof expected === "boolean") return answers.includes(expected ? 1 : 0);
  // An int equals a float only exactly (no rounding of the int to a double), as in Python.
  if (typeof expected === "bigint") return answers.some((answer) => answer !== null && Number.isInteger(answer) && BigInt(answer) === expected);
  // `in` tests identity before equality, and json.loads hands out one shared NaN object (float() of it is the same
  // object), so a NaN ground truth is found among NaN answers.
  return typeof expected === "number" && answers.some((answer) => answer === expected || (Number.isNaN(expected) && answer !== null && Number.isNaN(answer)));
}


/**
 * pydantic's lax int: an integral number, a numeric string or a bool. Only checked, never converted (verify
 * does not read these fields, and the request schema must leave the posted values as they are).
 */
const LaxInt = z.union([z.number().int(), z.string().regex(/^\s*[+-]?\d+(?:_\d+)*\s*$/), z.boolean()]);

export default resourcesServer({
  name: "MultiVerseMathHardResourcesServer",
  tools: Object.fromEntries(
    Object.entries(CALCULATORS).map(([name, calculator]) => [
      name,
      tool({
        description: calculator.description,
        input: CalculatorRequest,
        modelSchema: shownSchema(calculator),
        run: (_state, args) => calculate(name, calculator, args),
        formatOutput: formatSolution,
      }),
    ]),
  ),
  // Any other name: the body is still read first (a 422 wins), then "Function not found".
  unknownTool: {
    input: CalculatorRequest,
    run: () => {
      throw new HttpError(404, "Function not found");
    },
  },
  verify: {
    input: z.object({
      ground_truth: z.union([z.string(), z.array(z.union([z.number(), z.boolean(), z.string()]))]),
      id: LaxInt,
      depth: LaxInt,
      breadth: LaxInt,
    }),
    run(_state, { ground_truth, response }) {
      if (typeof ground_truth !== "string") throw new TypeError("the JSON object must be str, bytes or bytearray, not list");
      const expected = pythonIterate(pythonJsonLoads(ground_truth));
      // Every tool answer, in order; one that is not {"solution": <float>} counts as None.
      const answers = response.output
        .filter((item) => item.type === "function_call_output")
        .map((item) => {
          try {
            const parsed = pythonJsonLoads((item as { output: string }).output);
            if (!(parsed instanceof Map) || !parsed.has("solution")) return null;
            return pythonFloat(parsed.get("solution"));
          } catch {
            return null;
          }
        });
      return expected.every((value) => isAmong(value, answers)) ? 1 : 0;
    },
  },
});
