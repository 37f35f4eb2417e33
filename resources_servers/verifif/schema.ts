// VerifIF's schema check of a row's instructions and llm_judge items (NeMo Gym's validate_instructions_schema): every
// problem is one message, word for word; any problem makes the row a reward-0 "schema_validation" failure.
import { fromJsonValue, pythonRepr, pythonStr, pythonTruthy } from "../../src/python/values.ts";
import { EXPECTED_ARGUMENTS } from "./instructions.ts";

const NOT_ARGUMENTS = new Set(["instruction_id", "uid", "source", "is_misalignment_check", "weight"]);

const str = (value: unknown) => pythonStr(fromJsonValue(value));
const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** A dict key as Python hashes it: True and 1 (and 1.0) are one key, "1" another. */
function uidKey(uid: unknown): string {
  if (typeof uid === "boolean") return `n:${Number(uid)}`;
  if (typeof uid === "number") return `n:${uid}`;
  if (typeof uid === "string") return `s:${uid}`;
  return `j:${JSON.stringify(uid)}`;
}

export function schemaErrors(instructions: unknown[], llmJudge: Record<string, unknown>[]): string[] {
  const errors: string[] = [];
  const seen = new Map<string, string>();

  instructions.forEach((instruction, idx) => {
    if (!isPlainObject(instruction)) {
      errors.push(`Instruction at index ${idx}: must be an object`);
      return;
    }
    const instId = instruction.instruction_id;
    if (!pythonTruthy(fromJsonValue(instId))) {
      errors.push(`Instruction at index ${idx}: must have an 'instruction_id' field`);
      return;
    }
    const id = str(instId);
    const expected = typeof instId === "string" && Object.hasOwn(EXPECTED_ARGUMENTS, instId) ? EXPECTED_ARGUMENTS[instId]! : undefined;
    if (expected) {
      const actual = new Set(Object.keys(instruction).filter((key) => !NOT_ARGUMENTS.has(key)));
      const missing = expected.filter((name) => !actual.has(name));
      if (missing.length > 0) errors.push(`Instruction '${id}' at index ${idx}: missing required argument(s): ${pythonRepr([...new Set(missing)].sort())}`);
    } else {
      errors.push(`Instruction '${id}' at index ${idx}: unknown instruction_id`);
    }

    const uid = instruction.uid;
    if (uid === undefined || uid === null) {
      errors.push(`Instruction '${id}' at index ${idx}: must have a 'uid' field`);
    } else if (seen.has(uidKey(uid))) {
      errors.push(`Instruction '${id}' at index ${idx}: duplicate 'uid' value '${str(uid)}' (first seen at ${seen.get(uidKey(uid))})`);
    } else {
      seen.set(uidKey(uid), `instruction '${id}' at index ${idx}`);
    }

    if (!("source" in instruction)) errors.push(`Instruction '${id}': must have a 'source' field`);
    else if (instruction.source !== "user" && instruction.source !== "system") errors.push(`Instruction '${id}': invalid 'source' value '${str(instruction.source)}'. Must be 'user' or 'system'.`);

    if (!("is_misalignment_check" in instruction)) errors.push(`Instruction '${id}': must have an 'is_misalignment_check' field`);
    else if (typeof instruction.is_misalignment_check !== "boolean") errors.push(`Instruction '${id}': 'is_misalignment_check' must be a boolean, got '${str(instruction.is_misalignment_check)}'.`);
  });

  // The llm_judge items have passed their model's validation already, so only uid clashes can show here.
  llmJudge.forEach((item, idx) => {
    const uid = item.uid;
    const label = pythonTruthy(fromJsonValue(uid)) ? str(uid) : String(idx);
    if (uid === undefined || uid === null) errors.push(`llm_judge at index ${idx}: must have a 'uid' field`);
    else if (seen.has(uidKey(uid))) errors.push(`llm_judge at index ${idx}: duplicate 'uid' value '${str(uid)}' (first seen at ${seen.get(uidKey(uid))})`);
    else seen.set(uidKey(uid), `llm_judge at index ${idx}`);
    if (!("content" in item)) errors.push(`llm_judge '${label}': must have a 'content' field`);
    if (!("source" in item)) errors.push(`llm_judge '${label}': must have a 'source' field`);
    if (!("is_misalignment_check" in item)) errors.push(`llm_judge '${label}': must have an 'is_misalignment_check' field`);
  });
  return errors;
}
