// pydantic v2's behaviour for zod schemas: smart unions and model-field helpers (union.ts), lax-mode validation (lax.ts).
export * from "./union.ts";
export { expectedList, laxValidate, modelName, pythonEnum, typedDict, type LaxResult, type PydanticError } from "./lax.ts";
