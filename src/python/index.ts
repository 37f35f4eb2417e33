// Python semantics in JS, one place for each: what a port needs when NeMo Gym's Python decides something that
// JavaScript decides differently. Two value models, each with one str / repr / truthy / iterate / compare:
//
//   json-value.ts  values as JSON.parse gives them (request bodies, dataset rows): json* functions; a whole number
//                  is an int. jsonLoads reads text with Python's json.loads into this model.
//   values.ts      the PyValue model json.loads makes (json.ts: int → bigint, float → number, dict → Map), with
//                  python* builtins (str, repr, bool, list(), len, ==, <, sorted, [], in, join) and the bridges
//                  fromJsonValue / toJsonValue.
//
// Around them: repr.ts (repr of str and bytes), exception.ts (PyException and its kinds; exceptionRepr for any
// thrown error), json-dumps.ts (json.dumps: Python's defaults and NeMo Gym's compact wire form), float.ts
// (repr(float), format(x, ".Ng"), round, statistics.mean), sum.ts (builtin sum, CPython 3.12), math.ts (int / int,
// math.exp, math.fsum, math.gcd), numbers.ts (int() and float() of text), decimal.ts (decimal.Decimal), str.ts (str methods
// over code points), chars.ts (the character classes of isspace and re), escapes.ts (backslash escapes), pickle.ts (pickle.loads of a str), re/
// (the re module: translate.ts and pattern.ts), pydantic/ (pydantic v2 lax validation, smart unions; its own index.ts).
//
// src/python imports only itself and src/protocol (floor 0).

// ---- the JSON-value model ----
export { jsonEquals, jsonGetItem, jsonIterate, jsonLess, jsonLoads, jsonRepr, jsonStr, jsonTruthy, jsonTypeName } from "./json-value.ts";
export { FLOAT_FIELDS, orjsonDumps, pythonJsonDumps, pythonJsonDumpsTyped, toPythonJson, type PythonDumpsOptions } from "./json-dumps.ts";
export { unpickleStr } from "./pickle.ts";
export { PythonRandom } from "./random.ts";
export { pythonStrHashUnrandomised, siphash13 } from "./str-hash.ts";
export { NAMESPACE_URL, uuid5 } from "./uuid.ts";
export { pythonFormat } from "./str-format.ts";
export { PythonLiteralError, readPythonConstants } from "./literal.ts";
export { CsvError, pythonCsvDictRows, pythonCsvReader, pythonCsvRows, pythonCsvRowsFromString, stringIoLines, type CsvDialect } from "./csv.ts";

// ---- the Python-value model ----
export { pythonJsonLoads } from "./json.ts";
export {
  asNumber,
  fromJsonValue,
  isPyDict,
  PyOpaque,
  pythonContains,
  pythonEquals,
  pythonGetItem,
  pythonIterate,
  pythonJoin,
  pythonLenOf,
  pythonLess,
  pythonRepr,
  pythonSorted,
  pythonStr,
  pythonTruthy,
  pythonTypeName,
  toJsonValue,
  type PyAny,
  type PyDict,
  type PyValue,
} from "./values.ts";

// ---- repr, exceptions ----
export { pythonBytesRepr, pythonStringRepr } from "./repr.ts";
export {
  AttributeError,
  exceptionRepr,
  IndexError,
  InvalidOperation,
  KeyError,
  OverflowError,
  PyException,
  PyJsonDecodeError,
  PyRegexError,
  ValueError,
  ZeroDivisionError,
} from "./exception.ts";

// ---- numbers ----
export { complexRepr, floatParts, floatRepr, formatG, pythonMean, pythonRound } from "./float.ts";
export { PythonSum, pythonSum } from "./sum.ts";
export { gcd, pythonExp, pythonFsum, trueDivide } from "./math.ts";
export { asciiDigits, pythonFloat, pythonInt, pythonIntBig, pythonIntOfJson } from "./numbers.ts";
export { adjusted, decimalAbs, decimalEquals, decimalLessOrEqual, decimalQuantize, decimalSubtract, isZero, parseDecimal, type Decimal, type FiniteDecimal } from "./decimal.ts";

// ---- str, characters, escapes, re ----
export {
  codePoints,
  compareStrings,
  isAlpha,
  isDigit,
  isLower,
  isSpace,
  isUpper,
  pythonCount,
  pythonLen,
  pythonLower,
  pythonLstrip,
  pythonRstrip,
  pythonSlice,
  pythonStrip,
  removePrefix,
  removeSuffix,
  reversed,
  splitLines,
  splitWhitespace,
  stripWhere,
} from "./str.ts";
export { PYTHON_DIGIT_CHARS, PYTHON_NUMBER_SPACE_CHARS, PYTHON_SPACE_CHARS, PYTHON_WORD_BOUNDARY, PYTHON_WORD_CHARS } from "./chars.ts";
export { readEscape } from "./escapes.ts";
export * from "./re/index.ts";
