// What the tests read from NeMo Gym's recorded Tetris rollouts: the turns, and the start-up state that dealt them.
import { PythonRandom } from "../../../src/python/random.ts";
import { parseTetrisActions } from "../../../src/ports/grl/actions.ts";
import { TETRIS_DEFAULT_ACTION_LOOKUP, TetrisEnv } from "../../../src/ports/grl/tetris-env.ts";
import { formatTetrisObservation } from "../app.ts";

export interface RecordedTurn {
  text: string;
  observation?: string;
}

export function recordedTurns(output: Array<{ role?: string; content?: unknown }>): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  for (const item of output) {
    if (item.role === "assistant") turns.push({ text: (item.content as Array<{ text: string }>).map((part) => part.text).join("") });
    else if (item.role === "user") turns.at(-1)!.observation = item.content as string;
  }
  return turns;
}

/**
 * The first start-up seed K (Python `random.seed(K)` for NeMo's process state) under which the env, as the server
 * drives it, deals the rollout's pieces: its initial board, every recorded board, its summed reward. NeMo's own
 * process state came from OS entropy and is not in the rollout; a wrong port finds no K.
 */
export function startupSeedFor(row: Record<string, unknown>, rollout: any, limit = 3000): number | undefined {
  const initial = rollout.responses_create_params.input.at(-1).content;
  const turns = recordedTurns(rollout.response.output);
  for (let k = 0; k < limit; k++) {
    const envK = new TetrisEnv({ boxType: row.box_type, initialRandom: new PythonRandom(k), processRandom: new PythonRandom(k) });
    if (formatTetrisObservation(envK.reset(row.seed as number)) !== initial) continue;
    let total = 0;
    let consistent = true;
    let done = false;
    for (const turn of turns) {
      let board = "";
      for (const id of parseTetrisActions(turn.text, TETRIS_DEFAULT_ACTION_LOOKUP)) {
        const result = envK.step(id);
        total += result.reward;
        board = result.observation;
        if ((done = result.done)) break;
      }
      if (done) break;
      if (turn.observation !== formatTetrisObservation(board)) {
        consistent = false;
        break;
      }
    }
    if (consistent && done === rollout.terminated && total === rollout.reward) return k;
  }
  return undefined;
}
