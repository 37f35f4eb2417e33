// NewtonBench (HKUST-KnowComp/NewtonBench): scientific law discovery. A session is seeded with a physics module, a
// law difficulty and version, an experiment system and a noise level; the model runs experiments through
// `run_experiment_<module>` and submits `<final_law>def discovered_law(...)</final_law>`, which verify scores by RMSLE
// against the true law and an LLM judge's symbolic-equivalence verdict. NeMo Gym's NewtonBenchResourcesServer.
//
// Ported: m0_gravity (all nine laws, the three systems, the noise), its evaluation, the reward. Not ported, each a
// 501 naming it: the other eleven modules (at /seed_session), the code-assisted `execute_python` tool, and a law
// using Python this port's evaluator does not read (law-python.ts). NeMo Gym asks gpt-4.1 directly with
// OPENAI_API_KEY / OPENROUTER_API_KEY; here the judge is a model server instance named by `judge_model_server`.
import { z } from "zod";
import { askJudge, HttpError, JudgeModelServerRefSchema, resourcesServer, tool, type ServerContext } from "../../src/server/index.ts";
import { floatRepr } from "../../src/python/float.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { DIFFICULTIES, groundTruth, LAW_VERSIONS, runGravityExperiment, SYSTEMS, type Difficulty, type ExperimentResult, type LawVersion, type System } from "./gravity.ts";
import { JUDGE_ATTEMPTS, judgePromptFor, judgeVerdict, newtonBenchReward, scoreLaw, validateGravityFunction } from "./evaluation.ts";
import { UnsupportedLawError } from "./law-python.ts";
import { gravityParamDescription, symbolicJudgePrompt } from "./newton-bench-text.ts";
import { systemRng, type Rng } from "./rng.ts";

/** NewtonBench's twelve modules (NeMo Gym registers `/run_experiment_<module>` for each). */
export const MODULES = [
  "m0_gravity",
  "m1_coulomb_force",
  "m2_magnetic_force",
  "m3_fourier_law",
  "m4_snell_law",
  "m5_radioactive_decay",
  "m6_underdamped_harmonic",
  "m7_malus_law",
  "m8_sound_speed",
  "m9_hooke_law",
  "m10_be_distribution",
  "m11_heat_transfer",
] as const;
const PORTED_MODULES = new Set(["m0_gravity"]);

const Config = z.looseObject({
  // Seconds a session may sit unused before it is forgotten (NeMo Gym sweeps such sessions every 10 minutes).
  session_ttl: z.number().positive().default(1800),
  // Ours: the symbolic-equivalence judge (NeMo Gym's NewtonBench calls gpt-4.1 itself, from API keys in its env).
  judge_model_server: JudgeModelServerRefSchema.nullish(),
  // NewtonBench samples its judge at temperature 0.6.
  judge_responses_create_params: z.record(z.string(), z.unknown()).default({ temperature: 0.6 }),
});
type Config = z.output<typeof Config>;

const Seed = z.object({
  module_name: z.string(),
  difficulty: z.enum(DIFFICULTIES),
  system: z.enum(SYSTEMS),
  law_version: z.enum(LAW_VERSIONS),
  noise_level: z.number(),
});

interface Setup {
  module: string;
  difficulty: Difficulty;
  system: System;
  version: LawVersion;
  noiseLevel: number;
}

interface Session {
  setup: Setup | undefined;
  lastUsedMs: number;
  /** verify and /end_session close a session, as NeMo Gym drops its metadata. */
  ended: boolean;
}

const NOT_INITIALIZED = "Session not initialized. Please call seed_session first.";

/** The session's setup, or NeMo Gym's 400; a call refreshes the session's idle clock. */
function liveSetup(session: Session | undefined, config: Config): Setup {
  const now = Date.now();
  if (!session?.setup || session.ended || now - session.lastUsedMs > config.session_ttl * 1000) throw new HttpError(400, NOT_INITIALIZED);
  session.lastUsedMs = now;
  return session.setup;
}

const optionalNumber = (description: string) => ({ type: ["number", "null"], description });
/** The tool NeMo Gym's rows show (its get_tool_schema of M0GravityRequest). */
const GRAVITY_TOOL_PARAMETERS = {
  type: "object",
  properties: {
    mass1: { type: "number", description: "Mass of the first object. (positive real number)" },
    mass2: { type: "number", description: "Mass of the second object. (positive real number)" },
    distance: { type: "number", description: "Distance between the two objects. (positive real number)" },
    initial_velocity: optionalNumber("Initial velocity of the object. (optional)"),
    duration: optionalNumber("Duration of the simulation. (optional)"),
    time_step: optionalNumber("Time step for the simulation. (optional)"),
  },
  required: ["mass1", "mass2", "distance", "initial_velocity", "duration", "time_step"],
  additionalProperties: false,
};

const GravityInput = z.object({
  mass1: z.number(),
  mass2: z.number(),
  distance: z.number(),
  initial_velocity: z.number().nullish().transform((x) => x ?? null),
  duration: z.number().nullish().transform((x) => x ?? null),
  time_step: z.number().nullish().transform((x) => x ?? null),
});

/** FastAPI's body of RunExperimentResponse: compact JSON, Python float repr, nan / inf as null. */
function experimentReply(result: ExperimentResult): string {
  const safe = (x: number) => (Number.isFinite(x) ? floatRepr(x) : "null");
  if (typeof result === "number") return `{"result":${safe(result)}}`;
  return `{"result":${JSON.stringify(result)}}`;
}

/** NeMo Gym's _extract_law_from_response: the last assistant message whose text has a closed <final_law> block. */
export function extractLaw(response: NeMoGymResponse): string | undefined {
  for (const item of [...response.output].reverse()) {
    const message = item as { type?: string; role?: string; content?: { type?: string; text?: string }[] };
    if (message.type !== "message" || message.role !== "assistant") continue;
    const text = (message.content ?? []).map((part) => (part.type === "output_text" ? (part.text ?? "") : "")).join("");
    const start = text.lastIndexOf("<final_law>");
    if (start === -1) continue;
    const end = text.indexOf("</final_law>", start);
    if (end === -1) continue;
    return text.slice(start + "<final_law>".length, end).trim();
  }
  return undefined;
}

export interface NewtonBenchOptions {
  /** The randomness of the test points and the noise (default Math.random, as NewtonBench's unseeded generators). */
  rng?: () => Rng;
}

async function symbolicallyEquivalent(law: string, setup: Setup, server: ServerContext<Config>, row: Record<string, unknown>): Promise<boolean> {
  const judge = server.config.judge_model_server;
  if (!judge) {
    throw new HttpError(
      501,
      "newton_bench: scoring a law needs the symbolic-equivalence judge and judge_model_server is not set (NeMo Gym's NewtonBench asks gpt-4.1 itself with OPENAI_API_KEY / OPENROUTER_API_KEY; here serve that model as a responses_api_models instance and name it in judge_model_server)",
    );
  }
  const [template, params] = await Promise.all([symbolicJudgePrompt(), gravityParamDescription()]);
  const prompt = judgePromptFor(template, groundTruth(setup.difficulty, setup.version).formula, law, params);
  const endpoint = { serverName: judge.name, params: server.config.judge_responses_create_params };
  for (let attempt = 1; attempt <= JUDGE_ATTEMPTS; attempt++) {
    // A failed call is a JudgeError (verify answers the judge_failed row); an unreadable answer is asked again.
    const answer = await askJudge(server, endpoint, [{ role: "user", content: prompt }], { row });
    const verdict = judgeVerdict(answer.text);
    if (verdict !== undefined) return verdict;
  }
  return false;
}

export function newtonBench({ rng = systemRng }: NewtonBenchOptions = {}) {
  return resourcesServer({
    name: "NewtonBenchResourcesServer",
    config: Config,
    refusedConfigKeys: {
      max_execution_time: "it bounds execute_python, NewtonBench's code-assisted Python tool, which this port does not run (a call is a 501)",
    },
    seed: Seed,
    state: (seed): Session => {
      if (seed === undefined) return { setup: undefined, lastUsedMs: Date.now(), ended: false };
      if (!(MODULES as readonly string[]).includes(seed.module_name)) throw new HttpError(400, `Invalid module_name '${seed.module_name}'.`);
      if (!PORTED_MODULES.has(seed.module_name)) {
        throw new HttpError(501, `newton_bench: NewtonBench's module ${seed.module_name} is not ported (its simulator and evaluation); only m0_gravity is`);
      }
      return {
        setup: { module: seed.module_name, difficulty: seed.difficulty, system: seed.system, version: seed.law_version, noiseLevel: seed.noise_level },
        lastUsedMs: Date.now(),
        ended: false,
      };
    },
    tools: {
      run_experiment_m0_gravity: tool({
        description: "Run a physics experiment for the m0_gravity module to gather data.",
        input: GravityInput,
        modelSchema: GRAVITY_TOOL_PARAMETERS,
        formatOutput: experimentReply,
        run: (session: Session, args, { config }) => {
          const setup = liveSetup(session, config);
          if (setup.module !== "m0_gravity") throw new HttpError(400, `Session configured for '${setup.module}', but received run_experiment call for 'm0_gravity'.`);
          return runGravityExperiment(args, { difficulty: setup.difficulty, version: setup.version, system: setup.system, noiseLevel: setup.noiseLevel }, rng());
        },
      }),
      execute_python: tool({
        description:
          "Execute Python code for mathematical reasoning, hypothesis testing, and data analysis. Pre-imported libraries: numpy (as np), pandas (as pd), scipy, and math.",
        input: z.object({ code: z.string() }),
        run: (session: Session, _args, { config }) => {
          liveSetup(session, config);
          throw new HttpError(501, "newton_bench: execute_python (NewtonBench's code-assisted mode: a persistent Python session with numpy, pandas and scipy) is not ported");
        },
      }),
    },
    unknownTool: {
      run(session: Session, name, _args, { config }) {
        const module = name.startsWith("run_experiment_") ? name.slice("run_experiment_".length) : undefined;
        if (module === undefined || !(MODULES as readonly string[]).includes(module)) throw new HttpError(404, "Not Found");
        const setup = liveSetup(session, config);
        throw new HttpError(400, `Session configured for '${setup.module}', but received run_experiment call for '${module}'.`);
      },
    },
    routes(app, _server, sessions) {
      // NeMo Gym's /end_session: forgets the session (a later call is "not initialized").
      app.post("/end_session", async (request) => {
        const session = (await sessions.get(request.sessionId)) as Session | undefined;
        if (session) {
          session.ended = true;
          await sessions.set(request.sessionId, session);
        }
        return {};
      });
    },
    verify: {
      async run(session: Session | undefined, body, { config, server }) {
        const setup = liveSetup(session, config);
        // verify closes the session whatever it answers (NeMo Gym's `finally: self._close_session`).
        session!.ended = true;
        const echo = { difficulty: setup.difficulty, system: setup.system, noise_level: setup.noiseLevel, law_version: setup.version };
        const law = extractLaw(body.response);
        if (law === undefined) {
          return {
            reward: 0,
            ...echo,
            extracted_law: null,
            rmsle: null,
            exact_accuracy: null,
            symbolic_equivalent: null,
            evaluation_error: "No law found in response. Expected <final_law>...</final_law> tags.",
          };
        }
        const invalid = validateGravityFunction(law);
        if (invalid !== undefined) {
          return { reward: newtonBenchReward(NaN, false), ...echo, extracted_law: law, rmsle: null, exact_accuracy: 0, symbolic_equivalent: false, evaluation_error: invalid };
        }
        let score;
        try {
          score = scoreLaw(law, setup.difficulty, setup.version, rng());
        } catch (error) {
          if (error instanceof UnsupportedLawError) throw new HttpError(501, `newton_bench: ${error.message}`);
          throw error;
        }
        const equivalent = await symbolicallyEquivalent(law, setup, server, body as unknown as Record<string, unknown>);
        return {
          reward: newtonBenchReward(score.rmsle, equivalent),
          ...echo,
          extracted_law: law,
          rmsle: Number.isFinite(score.rmsle) ? score.rmsle : null,
          exact_accuracy: equivalent ? 1 : 0,
          symbolic_equivalent: equivalent,
          evaluation_error: score.error ?? null,
        };
      },
    },
    floatFields: ["noise_level", "rmsle", "exact_accuracy"],
  });
}

export default newtonBench();
