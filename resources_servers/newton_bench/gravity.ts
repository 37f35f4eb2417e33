// NewtonBench's m0_gravity module (HKUST-KnowComp/NewtonBench, modules/m0_gravity): a universe whose force law between
// two masses is one of nine "alien" laws (difficulty easy / medium / hard × law version v0 / v1 / v2), and three ways
// of measuring it — the force itself (vanilla_equation), a mass moving along a line (simple_system), an orbit in a
// plane (complex_system), both integrated with velocity Verlet. Measurements carry NewtonBench's relative Gaussian
// noise. The model's law is scored against the true one on 5000 log-uniform points (evaluation.ts).
import { LawRuntimeError } from "./law-eval.ts";
import type { Rng } from "./rng.ts";
import { correctPow } from "./pow.ts";

export const DIFFICULTIES = ["easy", "medium", "hard"] as const;
export const LAW_VERSIONS = ["v0", "v1", "v2"] as const;
export const SYSTEMS = ["vanilla_equation", "simple_system", "complex_system"] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];
export type LawVersion = (typeof LAW_VERSIONS)[number];
export type System = (typeof SYSTEMS)[number];

const HIDDEN_CONSTANT = 6.674e-5;

/**
 * Python's `**` on two floats, rounded as glibc's pow (pow.ts): an overflow of finite operands is OverflowError
 * (numpy's float64, used for `distance` inside the simulations, answers inf instead; see `numpyPow`).
 */
export function pythonPow(a: number, b: number): number {
  const r = correctPow(a, b);
  if (!Number.isFinite(r) && Number.isFinite(a) && Number.isFinite(b)) throw new LawRuntimeError("OverflowError", "(34, 'Numerical result out of range')");
  return r;
}
export const numpyPow = (a: number, b: number) => correctPow(a, b);
/**
 * Math.pow, for the 5000-point evaluation: there only agreement between the true law and the submission matters
 * (both are computed with the same pow), and the correctly rounded one costs ~35 µs a call.
 */
export const fastPow = (a: number, b: number) => Math.pow(a, b);

type Pow = (a: number, b: number) => number;
/** A force law: the masses' powers follow `powM`, the distance's `powD` (Python or numpy, by the caller's types). */
type ForceLaw = (m1: number, m2: number, r: number, powM: Pow, powD: Pow) => number;

interface GroundTruth {
  law: ForceLaw;
  /** `ast.unparse` of the law's return expression: what NewtonBench shows its symbolic judge as Equation 1. */
  formula: string;
}

// Each law returns 0.0 when a mass or the distance is not positive; the operations run in NewtonBench's order.
const guarded =
  (law: ForceLaw): ForceLaw =>
  (m1, m2, r, powM, powD) =>
    r <= 0 || m1 <= 0 || m2 <= 0 ? 0 : law(m1, m2, r, powM, powD);

const LAWS: Record<Difficulty, Record<LawVersion, GroundTruth>> = {
  easy: {
    v0: { law: guarded((m1, m2, r, _pm, pd) => (HIDDEN_CONSTANT * m1 * m2) / pd(r, 1.5)), formula: "HIDDEN_CONSTANT * mass1 * mass2 / distance ** 1.5" },
    v1: { law: guarded((m1, _m2, r, _pm, pd) => (HIDDEN_CONSTANT * m1) / pd(r, 2)), formula: "HIDDEN_CONSTANT * mass1 / distance ** 2" },
    v2: { law: guarded((m1, m2, r, pm, pd) => (HIDDEN_CONSTANT * (pm(m1, 2) * pm(m2, 2))) / pd(r, 2)), formula: "HIDDEN_CONSTANT * (mass1 ** 2 * mass2 ** 2) / distance ** 2" },
  },
  medium: {
    v0: { law: guarded((m1, m2, r, pm, pd) => (HIDDEN_CONSTANT * pm(m1 * m2, 2)) / pd(r, 1.5)), formula: "HIDDEN_CONSTANT * (mass1 * mass2) ** 2 / distance ** 1.5" },
    v1: { law: guarded((m1, _m2, r, _pm, pd) => (HIDDEN_CONSTANT * m1) / pd(r, 2.6)), formula: "HIDDEN_CONSTANT * mass1 / distance ** 2.6" },
    v2: { law: guarded((m1, m2, r, pm, pd) => HIDDEN_CONSTANT * (pm(m1, 2) * pm(m2, 2)) * pd(r, 2)), formula: "HIDDEN_CONSTANT * (mass1 ** 2 * mass2 ** 2) * distance ** 2" },
  },
  hard: {
    v0: { law: guarded((m1, m2, r, pm, pd) => (HIDDEN_CONSTANT * pm(m1 + m2, 2)) / pd(r, 1.5)), formula: "HIDDEN_CONSTANT * (mass1 + mass2) ** 2 / distance ** 1.5" },
    v1: { law: guarded((m1, _m2, r, pm, pd) => (HIDDEN_CONSTANT * pm(m1, 1.3)) / pd(r, 2.6)), formula: "HIDDEN_CONSTANT * mass1 ** 1.3 / distance ** 2.6" },
    v2: { law: guarded((m1, m2, r, pm, pd) => HIDDEN_CONSTANT * (pm(m1, 2) + pm(m2, 2)) * pd(r, 2)), formula: "HIDDEN_CONSTANT * (mass1 ** 2 + mass2 ** 2) * distance ** 2" },
  },
};

export const groundTruth = (difficulty: Difficulty, version: LawVersion): GroundTruth => LAWS[difficulty][version];

// ---- measurement noise (NewtonBench utils/noise.py) ----

const FORCE_PRECISION = 1e-12;
const POSITION_PRECISION = 1e-9;
const VELOCITY_PRECISION = 1e-9;

/** Relative Gaussian noise: sd = max(|x · level|, floor); none at all when the level is 0. */
export function injectNoise(value: number, level: number, floor: number, rng: Rng): number {
  if (level === 0) return value;
  const sigma = Math.max(Math.abs(value * level), floor);
  return value + sigma * rng.normal();
}

// ---- Python's "{:.Ne}" ----

/** `"{:.<digits>e}".format(x)`: at least two exponent digits, nan / inf spelled as Python does, -0 keeps its sign. */
export function formatExp(x: number, digits: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const magnitude = Math.abs(x);
  let text = magnitude.toExponential(digits);
  // JavaScript rounds an exact tie away from zero, Python to even: a tie shows as 5 then zeros in the exact digits.
  const exact = magnitude.toExponential(Math.min(100, digits + 60));
  const [mantissa, exponent] = exact.split("e") as [string, string];
  const kept = digits === 0 ? mantissa.slice(0, 1) : mantissa.slice(0, digits + 2);
  const dropped = mantissa.slice(kept.length);
  if (/^50*$/.test(dropped) && Number(kept.at(-1)) % 2 === 0) text = `${kept}e${exponent}`;
  text = text.replace(/e([+-])(\d)$/, "e$10$2");
  return x < 0 || Object.is(x, -0) ? `-${text}` : text;
}

// ---- the experiments ----

export interface GravityRequest {
  mass1: number;
  mass2: number;
  distance: number;
  initial_velocity: number | null;
  duration: number | null;
  time_step: number | null;
}

/** What one run answers: a float (vanilla_equation), a time series, or NewtonBench's `{"error": str(e)}`. */
export type ExperimentResult = number | { time: string[]; position: string[] | string[][]; velocity: string[] | string[][] } | { error: string };

/** NewtonBench keeps the first 20 samples of a trajectory; the steps after them are never seen, so never integrated. */
const MAX_POINTS = 20;

const typeOf = (x: number | null) => (x === null ? "NoneType" : "float");

/** `int(duration / time_step)` with Python's errors for a missing operand or a zero step. */
function stepCount(duration: number | null, timeStep: number | null): number {
  if (duration === null || timeStep === null) throw new LawRuntimeError("TypeError", `unsupported operand type(s) for /: '${typeOf(duration)}' and '${typeOf(timeStep)}'`);
  if (timeStep === 0) throw new LawRuntimeError("ZeroDivisionError", "float division by zero");
  const steps = duration / timeStep;
  if (!Number.isFinite(steps)) throw new LawRuntimeError(Number.isNaN(steps) ? "ValueError" : "OverflowError", Number.isNaN(steps) ? "cannot convert float NaN to integer" : "cannot convert float infinity to integer");
  return Math.trunc(steps);
}

const times = (steps: number, dt: number) => Array.from({ length: Math.min(steps, MAX_POINTS) }, (_, i) => formatExp(i * dt, 3));

// numpy stores None as nan in a float array: a missing initial velocity makes the whole trajectory nan.
const orNan = (x: number | null) => (x === null ? NaN : x);

function linearExperiment(request: GravityRequest, law: ForceLaw, noise: number, rng: Rng): ExperimentResult {
  const steps = stepCount(request.duration, request.time_step);
  if (steps <= 0) return { time: [], position: [], velocity: [] };
  const dt = request.time_step!;
  const { mass1, mass2 } = request;
  // 1D: the fixed mass at the origin pulls (or pushes) mass2 along x; the force's sign is the position's sign.
  const acceleration = (x: number) => -(law(mass1, mass2, Math.abs(x), pythonPow, numpyPow) * Math.sign(x)) / mass2;
  const kept = Math.min(steps, MAX_POINTS);
  const positions = [request.distance];
  const velocities = [orNan(request.initial_velocity)];
  let acc = acceleration(positions[0]!);
  for (let i = 1; i < kept; i++) {
    const x = positions[i - 1]!;
    const v = velocities[i - 1]!;
    const xNew = x + v * dt + 0.5 * acc * dt ** 2;
    const vHalf = v + 0.5 * acc * dt;
    const accNew = acceleration(xNew);
    positions.push(xNew);
    velocities.push(vHalf + 0.5 * accNew * dt);
    acc = accNew;
  }
  return {
    time: times(steps, dt),
    position: positions.map((x) => formatExp(injectNoise(x, noise, POSITION_PRECISION, rng), 6)),
    velocity: velocities.map((v) => formatExp(injectNoise(v, noise, VELOCITY_PRECISION, rng), 6)),
  };
}

function orbitalExperiment(request: GravityRequest, law: ForceLaw, noise: number, rng: Rng): ExperimentResult {
  const steps = stepCount(request.duration, request.time_step);
  if (steps <= 0) return { time: [], position: [], velocity: [] };
  const dt = request.time_step!;
  const { mass1, mass2 } = request;
  // 2D: mass1 fixed at the origin, mass2 starting at (distance, 0) with its velocity along y.
  const acceleration = ([x, y]: [number, number]): [number, number] => {
    const r = Math.sqrt(x * x + y * y);
    if (r === 0) return [0, 0];
    const force = law(mass1, mass2, r, pythonPow, numpyPow);
    const scale = -(force / mass2);
    return [scale * (x / r), scale * (y / r)];
  };
  const kept = Math.min(steps, MAX_POINTS);
  const positions: [number, number][] = [[request.distance, 0]];
  const velocities: [number, number][] = [[0, orNan(request.initial_velocity)]];
  for (let i = 1; i < kept; i++) {
    const p = positions[i - 1]!;
    const v = velocities[i - 1]!;
    const a = acceleration(p);
    const pNew: [number, number] = [p[0] + v[0] * dt + 0.5 * a[0] * dt ** 2, p[1] + v[1] * dt + 0.5 * a[1] * dt ** 2];
    const vHalf = [v[0] + 0.5 * a[0] * dt, v[1] + 0.5 * a[1] * dt];
    const aNew = acceleration(pNew);
    positions.push(pNew);
    velocities.push([vHalf[0]! + 0.5 * aNew[0] * dt, vHalf[1]! + 0.5 * aNew[1] * dt]);
  }
  const pair = (values: [number, number], floor: number) => values.map((x) => formatExp(injectNoise(x, noise, floor, rng), 6));
  return {
    time: times(steps, dt),
    position: positions.map((p) => pair(p, POSITION_PRECISION)),
    velocity: velocities.map((v) => pair(v, VELOCITY_PRECISION)),
  };
}

/** NewtonBench's run_experiment_for_module for m0_gravity; a Python exception inside is its `{"error": str(e)}`. */
export function runGravityExperiment(request: GravityRequest, setup: { difficulty: Difficulty; version: LawVersion; system: System; noiseLevel: number }, rng: Rng): ExperimentResult {
  const { law } = groundTruth(setup.difficulty, setup.version);
  try {
    switch (setup.system) {
      case "vanilla_equation":
        return injectNoise(law(request.mass1, request.mass2, request.distance, pythonPow, pythonPow), setup.noiseLevel, FORCE_PRECISION, rng);
      case "simple_system":
        return linearExperiment(request, law, setup.noiseLevel, rng);
      case "complex_system":
        return orbitalExperiment(request, law, setup.noiseLevel, rng);
    }
  } catch (error) {
    if (error instanceof LawRuntimeError) return { error: error.message };
    throw error;
  }
}
