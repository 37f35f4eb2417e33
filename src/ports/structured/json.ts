// JSON as `json.loads` reads it (Python's scanner, shared with the other verifiers).
import { pythonJsonLoads } from "../../python/json.ts";
import type { StructuredValue } from "./value.ts";

/** `json.loads(text)`; throws a `JSONDecodeError` whose message reads as Python's. */
export const parseJson = (text: string): StructuredValue => pythonJsonLoads(text);
