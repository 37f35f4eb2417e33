// How a WorkBench tool is declared: the schema the model sees (NeMo Gym's, word for word), the Python method it
// ports (its name appears in Python's TypeError messages) and whether it can change the compared state.
import { z } from "zod";

/** Keyword arguments as Python receives them: any JSON value, `null` for an explicit None. */
export type Kwargs = Record<string, unknown>;

export interface WorkbenchTool<Kit> {
  description: string;
  /** Declared parameters; unknown keys pass through so the call fails the way Python's does. */
  input: z.ZodObject<z.ZodRawShape, z.core.$loose>;
  /** `Class.method`, as Python names it in "got an unexpected keyword argument". */
  pythonName: string;
  /** Whether the tool can change a table verify compares (read-only tools are skipped when verify replays). */
  writes: boolean;
  run(kit: Kit, kwargs: Kwargs): unknown;
}

export const text = (description: string) => z.string().describe(description);
export const integer = (description: string) => z.number().int().describe(description);

export function workbenchTool<Kit>(spec: {
  description: string;
  input: z.ZodRawShape;
  python: string;
  writes?: boolean;
  run(kit: Kit, kwargs: Kwargs): unknown;
}): WorkbenchTool<Kit> {
  return { description: spec.description, input: z.looseObject(spec.input), pythonName: spec.python, writes: spec.writes ?? false, run: spec.run };
}
