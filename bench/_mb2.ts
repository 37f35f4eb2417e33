import { readFileSync } from "node:fs";
import { BaseVerifyRequestSchema, ResponseSchema, ResponseCreateParamsSchema, BaseRunRequestSchema } from "../src/protocol/index.ts";
import { laxValidate } from "../src/python/pydantic/index.ts";
import { parseRequestJson, stringifyWire, FLOAT_FIELDS } from "../src/protocol/wire-json.ts";
const line = JSON.parse(readFileSync("/tmp/mb/line.json", "utf8"));
const text = JSON.stringify(line);
function time(label: string, f: () => unknown, n = 20000) {
  for (let i = 0; i < 2000; i++) f();
  const t = performance.now(); for (let i = 0; i < n; i++) f(); const us = (performance.now() - t) * 1000 / n;
  console.log(label.padEnd(40), us.toFixed(1), "us");
}
time("lax ResponseCreateParams", () => laxValidate(ResponseCreateParamsSchema, line.responses_create_params));
time("zod ResponseCreateParams", () => ResponseCreateParamsSchema.safeParse(line.responses_create_params));
time("lax Response", () => laxValidate(ResponseSchema, line.response));
time("zod Response", () => ResponseSchema.safeParse(line.response));
time("lax BaseVerifyRequest", () => laxValidate(BaseVerifyRequestSchema, line));
time("lax BaseRunRequest", () => laxValidate(BaseRunRequestSchema, { responses_create_params: line.responses_create_params }));
time("parseRequestJson (line)", () => parseRequestJson(text, "json", 100));
time("JSON.parse (line)", () => JSON.parse(text));
time("stringifyWire (line)", () => stringifyWire(line, { encoding: "json", floatFields: FLOAT_FIELDS }));
time("JSON.stringify (line)", () => JSON.stringify(line));
