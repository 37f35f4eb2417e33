// The generators a GRL environment draws from when a reset carries no seed. NeMo Gym's Python uses the module-level
// `random` and `np.random` of its server process, seeded from the OS at start; these are this process's stand-ins,
// seeded from the OS the same way (so an unseeded reset is as unpredictable here as there), made once and shared.
import { randomBytes } from "node:crypto";
import { NumpyRandomState } from "../../python/numpy-random.ts";
import { PythonRandom } from "../../python/random.ts";

let processPython: PythonRandom | undefined;
let processNumpy: NumpyRandomState | undefined;

/** The process's stand-in for Python's module-level `random` (seeded from 16 bytes of OS entropy). */
export function processPythonRandom(): PythonRandom {
  return (processPython ??= new PythonRandom(BigInt(`0x${randomBytes(16).toString("hex")}`)));
}

/** The process's stand-in for NumPy's global legacy generator (seeded from 4 bytes of OS entropy). */
export function processNumpyRandom(): NumpyRandomState {
  return (processNumpy ??= new NumpyRandomState(randomBytes(4).readUInt32LE(0)));
}

/** Why a seed cannot be used: NumPy's legacy `np.random.seed` takes only ints in [0, 2**32). */
export function seedProblem(seed: unknown): string | undefined {
  if (seed === undefined || seed === null) return undefined;
  if (typeof seed !== "number" || !Number.isInteger(seed)) return "seed must be an integer (or null)";
  if (seed < 0 || seed > 0xffffffff) return "seed must be between 0 and 2**32 - 1 (np.random.seed's range)";
  return undefined;
}
