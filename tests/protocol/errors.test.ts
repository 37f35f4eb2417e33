// FastAPI's 422 detail for a literal: pydantic prints the allowed values with Python's repr (pinned against
// pydantic 2 on python3: `Literal["it's", 'b']` and `Literal[True]`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { validationErrorFromZod } from "../../src/protocol/errors.ts";

test("literal_error lists the options as Python reprs: the quote Python picks, True not true", () => {
  const schema = z.object({ a: z.enum(["it's", "b"]), c: z.literal(true) });
  const body = { a: "x", c: false };
  const parsed = schema.safeParse(body);
  assert.ok(!parsed.success);
  const detail = validationErrorFromZod(parsed.error, body).detail;
  assert.deepEqual(
    detail.map((d) => [d.type, d.msg, d.ctx]),
    [
      ["literal_error", `Input should be "it's" or 'b'`, { expected: `"it's" or 'b'` }],
      ["literal_error", "Input should be True", { expected: "True" }],
    ],
  );
});
