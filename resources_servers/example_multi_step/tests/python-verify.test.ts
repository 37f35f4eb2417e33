// verify on submissions that are not plain lists of ints, against NeMo Gym's verify: the expectations were produced
// by its verify's steps (json.loads, set(), `in`, and ExampleMultiStepVerifyResponse under pydantic 2.13.4, the
// version its uv.lock pins), with its server's 500 body, repr(e).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { http, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import multiStep from "../app.ts";
import { laxInt } from "../python-verify.ts";

let graph: InProcessGraph;
const client = http();
before(async () => (graph = await startServers({ multi: [multiStep] })));
after(async () => {
  await graph.close();
  await client.close();
});

const row = { responses_create_params: { input: "x" }, id: 1, expected_synonyms: ["Blazing", "Warm"], expected_synonym_values: [711, 407], minefield_label: "Hot", minefield_label_value: 299 };
const responseWith = (argumentsText: string) => ({
  id: "r", created_at: 1, model: "m", object: "response", parallel_tool_calls: false, tool_choice: "auto", tools: [],
  output: [{ type: "function_call", name: "extract_synonym_values", arguments: argumentsText, call_id: "c0" }],
});
const FIELDS = ["reward", "parsed_synonym_values", "accuracy", "set_overlap", "original_term_minefield_hit", "order_instruction_following_failure"];

// [arguments, NeMo Gym's status, its body: the scored fields on a 200, repr(e) on a 500]
const CASES: [string, 200 | 500, unknown][] = [
  ["{\"synonym_values\": [711.0, \"407\"]}", 200, {"reward": 0.0, "parsed_synonym_values": [711, 407], "accuracy": false, "set_overlap": 0.5, "original_term_minefield_hit": false, "order_instruction_following_failure": false}],
  ["{\"synonym_values\": [true, 407]}", 200, {"reward": 0.0, "parsed_synonym_values": [1, 407], "accuracy": false, "set_overlap": 0.5, "original_term_minefield_hit": false, "order_instruction_following_failure": false}],
  ["{\"synonym_values\": [711, 1.5]}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values.1\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=1.5, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_from_float"],
  ["{\"synonym_values\": [\"x\", 407]}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values.0\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing"],
  ["{\"synonym_values\": [711, null, 2.5, \"1e3\"]}", 500, "3 validation errors for ExampleMultiStepVerifyResponse\nparsed_synonym_values.1\n  Input should be a valid integer [type=int_type, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_type\nparsed_synonym_values.2\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=2.5, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_from_float\nparsed_synonym_values.3\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='1e3', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing"],
  ["{\"synonym_values\": [\" 7_11 \", \"+407.00\"]}", 200, {"reward": 0.0, "parsed_synonym_values": [711, 407], "accuracy": false, "set_overlap": 0.0, "original_term_minefield_hit": false, "order_instruction_following_failure": false}],
  ["{\"synonym_values\": [\"Hot\", 711]}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values.0\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='Hot', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing"],
  ["{\"synonym_values\": [[711], 407]}", 500, "TypeError(\"unhashable type: 'list'\")"],
  ["{\"synonym_values\": \"Hot\"}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values\n  Input should be a valid list [type=list_type, input_value='Hot', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/list_type"],
  ["{\"synonym_values\": \"abc\"}", 500, "TypeError(\"'in <string>' requires string as left operand, not int\")"],
  ["{\"synonym_values\": {\"Hot\": 1}}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values\n  Input should be a valid list [type=list_type, input_value={'Hot': 1}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/list_type"],
  ["{\"synonym_values\": 711}", 500, "TypeError(\"'int' object is not iterable\")"],
  ["{\"synonym_values\": [711, 407, 711.0, true]}", 200, {"reward": 0.0, "parsed_synonym_values": [711, 407, 711, 1], "accuracy": false, "set_overlap": 1.0, "original_term_minefield_hit": false, "order_instruction_following_failure": true}],
  ["{\"synonym_values\": [1e20]}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values.0\n  Unable to parse input string as an integer, exceeded maximum size [type=int_parsing_size, input_value=1e+20, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing_size"],
  ["{\"synonym_values\": [NaN]}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values.0\n  Input should be a finite number [type=finite_number, input_value=nan, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.13/v/finite_number"],
  ["{\"other\": 1}", 500, "KeyError('synonym_values')"],
  ["[711]", 500, "TypeError('list indices must be integers or slices, not str')"],
  ["{\"synonym_values\": [299.0, 407], \"note\": NaN}", 200, {"reward": 0.0, "parsed_synonym_values": [299, 407], "accuracy": false, "set_overlap": 0.5, "original_term_minefield_hit": true, "order_instruction_following_failure": false}],
  ["{\"synonym_values\": [\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}", 500, "1 validation error for ExampleMultiStepVerifyResponse\nparsed_synonym_values.0\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='aaaaaaaaaaaaaaaaaaaaaaaa...aaaaaaaaaaaaaaaaaaaaaaa', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing"],
];

describe("verify as NeMo Gym's on what json.loads makes of the submission", () => {
  for (const [argumentsText, status, expected] of CASES) {
    test(argumentsText, async () => {
      const answer = await client.request(`${graph.url("multi")}/verify`, { method: "POST", json: { ...row, response: responseWith(argumentsText) } });
      assert.equal(answer.status, status, answer.text);
      const body = answer.json<Record<string, unknown> | string>();
      if (status === 500) assert.equal(body, expected);
      else assert.deepEqual(Object.fromEntries(FIELDS.map((field) => [field, (body as Record<string, unknown>)[field]])), expected);
    });
  }
});

describe("pydantic's lax int", () => {
  test("accepts bools, integral floats inside ±2**63, and trimmed decimal strings with underscores and a .0 tail", () => {
    const accepted: [unknown, bigint][] = [[true, 1n], [false, 0n], [-0, 0n], [9223372036854774784, 9223372036854774784n], ["\u00a0 -0_12.000\n", -12n], ["00012", 12n], ["99999999999999999999999999.0", 99999999999999999999999999n]];
    for (const [value, int] of accepted) assert.deepEqual(laxInt(value as never), { value: int }, String(value));
  });

  test("refuses the rest with pydantic's error type", () => {
    const refused: [unknown, string][] = [[2 ** 63, "int_parsing_size"], [-(2 ** 63), "int_parsing_size"], [Infinity, "finite_number"], [0.5, "int_from_float"], ["1.", "int_parsing"], ["1.0_0", "int_parsing"], ["1__0", "int_parsing"], ["0x10", "int_parsing"], ["\u0663", "int_parsing"], ["1\x1c", "int_parsing"], [null, "int_type"]];
    for (const [value, type] of refused) assert.equal((laxInt(value as never) as { type: string }).type, type, String(value));
  });
});
