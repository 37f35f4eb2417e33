// The prompt context and the code kept of an answer, as NeMo Gym's step_utils builds them, down to Python's regex
// semantics (what counts as a line start, a space, any character).
import { test } from "node:test";
import assert from "node:assert/strict";
import { extractPythonCode, isContextWindowMessage, isPrefilled, stepContext, type SubStep } from "../steps.ts";

const steps: SubStep[] = [
  { step_description_prompt: "D0", step_background: "B0", function_header: "def f0():", return_line: "r0" },
  { step_description_prompt: "D1", step_background: "B1", function_header: "def f1():", return_line: "r1" },
  { step_description_prompt: "D2", step_background: "B2", function_header: "def f2():", return_line: "r2" },
];

test("the context of a step: earlier steps with their code, `------` between them; the next step with header and return line", () => {
  assert.deepEqual(stepContext(steps, 0, [], true), { problemSteps: "", nextStep: "D0\nB0\n\ndef f0():\n\nr0", previousCode: "" });
  assert.deepEqual(stepContext(steps, 2, ["c0", "c1"], true), {
    problemSteps: "D0\nB0\n\nc0\n\n------\n\nD1\nB1\n\nc1",
    nextStep: "D2\nB2\n\ndef f2():\n\nr2",
    previousCode: "c0\nc1",
  });
  assert.deepEqual(stepContext(steps, 1, ["c0"], false), { problemSteps: "D0\n\nc0", nextStep: "D1\n\ndef f1():\n\nr1", previousCode: "c0" });
});

test("the code kept: the first ```python block, else the first ``` block, else everything; import lines removed", () => {
  assert.equal(extractPythonCode("pre\n```python\nimport numpy as np\nx = 1\n```\npost"), "\nx = 1\n");
  assert.equal(extractPythonCode("```\ny = 2\n```\n```python\nz = 3\n```"), "\nz = 3\n", "a python block wins over an earlier plain one");
  assert.equal(extractPythonCode("```\ny = 2\n```"), "\ny = 2\n");
  assert.equal(extractPythonCode("z = 3"), "z = 3");
  assert.equal(extractPythonCode("```python\nx = 1\n   from a.b import (c,\nd)\n"), "\nx = 1\n\nd)\n", "an unclosed fence; a multi-line import keeps its tail");
  assert.equal(extractPythonCode("def f():\n    import os\n    return os.sep"), "def f():\n\n    return os.sep", "indented imports too; their line break stays");
  assert.equal(extractPythonCode("a\n\n  import os\nb"), "a\n\nb", "blank lines before an import go with it");
  assert.equal(extractPythonCode("a\n\x1cimport os"), "a\n", "\\x1c is a space to Python");
  assert.equal(extractPythonCode("a\n\ufeffimport os"), "a\n\ufeffimport os", "\\ufeff is not");
  assert.equal(extractPythonCode("x = 1\r\nimport os\r\ny = 2"), "x = 1\r\n\ny = 2", "Python's `.` eats the \\r; a line starts after \\n only");
  assert.equal(extractPythonCode("x = 1\rimport os"), "x = 1\rimport os", "\\r alone is no line start in Python's re");
  assert.equal(extractPythonCode("important = 1\nfromage = 2"), "important = 1\nfromage = 2");
});

test("context-window refusals are recognised by NeMo Gym's phrases; the prefilled steps are SciCode's three", () => {
  assert.ok(isContextWindowMessage("... exceeds maximum input length ..."));
  assert.ok(isContextWindowMessage("max_tokens must be at least 1, got -12."));
  assert.ok(!isContextWindowMessage("some other error"));
  assert.deepEqual([isPrefilled("13", 5), isPrefilled("62", 0), isPrefilled("76", 2), isPrefilled("13", 4), isPrefilled("62", 1)], [true, true, true, false, false]);
});
