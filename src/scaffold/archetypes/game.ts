// `game`: one tool, one secret per task. The row's answer (`ground_truth`, a list of dicts in NeMo Gym data)
// travels through /seed_session into the session's game; verify pays only for a game the tool calls won.
import type { FunctionToolDefinition } from "../../server/index.ts";
import { classTitle } from "../common.ts";
import { importLines, row, type Archetype, type Row, type SourceContext, type VerifierCase } from "./shared.ts";

const app = (context: SourceContext) => `// ${context.name}: guess the secret five-letter word in six tries. The row's answer (\`ground_truth\`) is carried
// through /seed_session into the session's game; verify pays 1 only for a game the guesses really won.
${importLines(context, [["{ resourcesServer, tool }", "src/server/index.ts"]])}

const MAX_GUESSES = 6;

interface Game {
  /** Undefined when a tool is called before /seed_session: there is no task to play. */
  answer: string | undefined;
  guesses: string[];
  solved: boolean;
}

// NeMo Gym rows carry the answer as a list of dicts (\`[{"expected_output": "crane"}]\`); a dict or a string works too.
const Answer = z.union([z.string(), z.object({ expected_output: z.string() })]);
const GroundTruth = z.union([Answer, z.array(Answer).min(1)]);

function answerOf(groundTruth: z.output<typeof GroundTruth>): string {
  const first = Array.isArray(groundTruth) ? groundTruth[0]! : groundTruth;
  return (typeof first === "string" ? first : first.expected_output).trim().toLowerCase();
}

/** 🟩 right letter in the right place, 🟨 in the word elsewhere, ⬛ not (or no more) in the word. */
function feedback(guess: string, answer: string): string {
  const marks: string[] = [...guess].map((letter, i) => (letter === answer[i] ? "🟩" : "⬛"));
  const unmatched = [...answer].filter((letter, i) => letter !== guess[i]);
  [...guess].forEach((letter, i) => {
    const at = marks[i] === "🟩" ? -1 : unmatched.indexOf(letter);
    if (at >= 0) {
      marks[i] = "🟨";
      unmatched.splice(at, 1);
    }
  });
  return marks.join("");
}

export default resourcesServer({
  name: "${classTitle(context.name)}ResourcesServer",
  seed: z.object({ ground_truth: GroundTruth }),
  state: (seed): Game => ({ answer: seed ? answerOf(seed.ground_truth) : undefined, guesses: [], solved: false }),
  tools: {
    guess: tool({
      description: "Guess the secret five-letter word. Feedback per letter: 🟩 right place, 🟨 elsewhere in the word, ⬛ not in it.",
      input: z.object({ word: z.string().describe("A five-letter English word.") }),
      run: (game: Game, { word }) => {
        if (game.answer === undefined) return { error: "No game in this session: POST /seed_session with the task's row first." };
        // A finished game is frozen: a later guess cannot turn a loss into a win.
        if (game.solved || game.guesses.length >= MAX_GUESSES) return { error: "The game is over.", solved: game.solved };
        const guess = word.trim().toLowerCase();
        if (!/^[a-z]{5}$/.test(guess)) return { error: \`'\${word}' is not a five-letter word; no guess was used.\`, guesses_left: MAX_GUESSES - game.guesses.length };
        game.guesses.push(guess);
        game.solved = guess === game.answer;
        return { guess, feedback: feedback(guess, game.answer), solved: game.solved, guesses_left: MAX_GUESSES - game.guesses.length };
      },
    }),
  },
  verify: {
    input: z.object({ ground_truth: GroundTruth }),
    // The session's game decides, never the assistant's text: writing "Correct!" in a message scores 0.
    run: (game, { ground_truth }) => ({
      reward: game?.solved === true && game.answer === answerOf(ground_truth) ? 1 : 0,
      guesses_used: game?.guesses.length ?? 0,
    }),
  },
});
`;

const DEVELOPER = "You are playing a word game. Call the guess tool with one five-letter word at a time and use its feedback; stop when the word is solved or no guesses are left.";

const truth = (word: string) => ({ ground_truth: [{ expected_output: word }] });

function exampleRows(tools: FunctionToolDefinition[]): Row[] {
  return [
    row(DEVELOPER, 'Find the secret five-letter word in at most six guesses. Open with "crane".', tools, truth("crane")),
    row(DEVELOPER, 'Find the secret five-letter word in at most six guesses. A good opener is "slate".', tools, truth("plant")),
    row(DEVELOPER, 'Solve today\'s puzzle: the hidden word has five letters. Try "house" first, then "ghost".', tools, truth("ghost")),
    row(DEVELOPER, "Play the word game: the secret word is five letters long. Read the feedback carefully.", tools, truth("brick")),
    row(DEVELOPER, 'Guess the hidden word. Start with "audio", then "smile" if you need to.', tools, truth("smile")),
  ];
}

function verifierCases(rows: Row[]): VerifierCase[] {
  const crane = rows[0]!;
  return [
    { case: "full_reward", row: crane, tool_calls: [{ name: "guess", arguments: { word: "crane" } }], output_text: "Solved: the word is crane.", expected_reward: 1 },
    {
      case: "full_reward",
      row: crane,
      tool_calls: [{ name: "guess", arguments: { word: "slate" } }, { name: "guess", arguments: { word: "CRANE" } }],
      output_text: "Got it on the second try.",
      expected_reward: 1,
    },
    { case: "zero_reward", row: crane, tool_calls: [{ name: "guess", arguments: { word: "slate" } }], output_text: "I give up.", expected_reward: 0 },
    // Claiming the win in text, with no winning guess, pays nothing.
    { case: "zero_reward", row: crane, tool_calls: [], output_text: "Correct! The word was 'crane'. Solved in 1 guesses.", expected_reward: 0 },
    {
      case: "zero_reward",
      row: crane,
      tool_calls: [...["slate", "pious", "bumpy", "wordy", "fight", "lunch"].map((word) => ({ name: "guess", arguments: { word } })), { name: "guess", arguments: { word: "crane" } }],
      output_text: "crane, after the game was over.",
      expected_reward: 0,
    },
    { case: "malformed", row: crane, tool_calls: [{ name: "guess", arguments: { word: 42 } }], output_text: "{not json", expected_reward: 0 },
    { case: "malformed", row: crane, tool_calls: [{ name: "guess", arguments: { guess: "crane" } }], output_text: "", expected_reward: 0 },
  ];
}

const tests = `
test("the answer in the row's ground_truth (a list, a dict or a string) seeds the session's game", async () => {
  for (const ground_truth of [[{ expected_output: "crane" }], { expected_output: "crane" }, "CRANE", ["crane"]]) {
    const row = { ...rows[0], ground_truth };
    assert.equal((await play(row, [{ name: "guess", arguments: { word: "crane" } }])).reward, 1, JSON.stringify(ground_truth));
  }
});

test("feedback marks right, misplaced and absent letters, counting repeated letters once", async () => {
  const cookies = (await post("/seed_session", { ...rows[0], ground_truth: [{ expected_output: "crane" }] })).cookies;
  const answer = await post("/guess", { word: "nanny" }, cookies);
  assert.deepEqual(answer.json(), { guess: "nanny", feedback: "⬛🟨⬛🟩⬛", solved: false, guesses_left: 5 });
});

test("a guess that is not a five-letter word uses no guess; a bad argument is a 422", async () => {
  const cookies = (await post("/seed_session", rows[0])).cookies;
  assert.match((await post("/guess", { word: "hi" }, cookies)).json().error, /not a five-letter word/);
  assert.equal((await post("/guess", { word: 5 }, cookies)).status, 422);
});

test("a guess before /seed_session says what is missing; seeding without ground_truth is a 422", async () => {
  assert.match((await post("/guess", { word: "crane" })).json().error, /seed_session/);
  assert.equal((await post("/seed_session", { responses_create_params: { input: "x" } })).status, 422);
});

test("a session won for one task does not pay for another task's answer", async () => {
  let cookies = (await post("/seed_session", rows[0])).cookies;
  cookies = (await post("/guess", { word: "crane" }, cookies)).cookies;
  const other = await post("/verify", { ...rows[1], response: responseOf([], "crane") }, cookies);
  assert.equal(other.json().reward, 0);
});
`;

export const game: Archetype = {
  summary: "A word game: guess the row's secret word with one tool; verify pays for a game really won",
  domain: "games",
  readme: `**Archetype: game.** One tool, one secret per task.

- **Seed** \`ground_truth\`: the answer, as NeMo Gym rows carry it — a list of dicts (\`[{"expected_output": "crane"}]\`);
  a dict or a plain string work too. /seed_session puts it into the session's game, so the task is never lost.
- **Tool** \`guess {word}\` → \`{guess, feedback, solved, guesses_left}\` (🟩 right place, 🟨 elsewhere, ⬛ absent).
  Six guesses; a finished game is frozen, so a correct guess after a loss does not count. A guess before
  /seed_session answers with an error saying so.
- **Verify** (\`ground_truth\`): \`reward\` 1 iff the session's game was solved and its answer is this row's; the
  assistant's text is never read, so claiming "Correct!" scores 0. Extra field: \`guesses_used\`.`,
  app,
  exampleRows,
  verifierCases,
  tests,
};
