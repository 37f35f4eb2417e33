// GSM8K test split (NeMo Gym's benchmarks/gsm8k/prepare.py, itself nemo-skills'): OpenAI's test.jsonl from
// GitHub; the number after "####" is the expected answer (an int when whole), the calculator annotations
// <<…>> are dropped from the reference solution, and nemo-skills' fixes of known-wrong answers are applied.
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";
import { pythonFloat } from "../../src/python/index.ts";

/** Questions whose upstream answer is wrong, and the right one (nemo-skills' list, byte for byte). */
const FIXES = new Map<string, bigint | string>([
  ["Mr. Finnegan has 3 tanks with a capacity of 7000 gallons, 5000 gallons, and 3000 gallons, respectively. If he fills the first tank up to 3/4 full, the second tank with water up to 4/5 of its capacity, and the third tank up to half of its capacity, how many gallons in total are in the tanks?", 10750n],
  ["If you double a number and add 5 to the result, then that's 20 more than half of the original number. What's the original number?", 10n],
  ["John has 2 hives of bees.  One of the hives has 1000 bees and produces 500 liters of honey.  The second has 20% fewer bees but each bee produces 40% more honey.  How much honey does he produce?", 2740n],
  ["Three blue chips are in a jar which is 10% of the entire chips. If 50% of the chips are white and the rest are green, how many green chips are there?", 15n],
  ["Janet filmed a new movie that is 60% longer than her previous 2-hour long movie.  Her previous movie cost $50 per minute to film, and the newest movie cost twice as much per minute to film as the previous movie.  What was the total amount of money required to film Janet's entire newest film?", 19200n],
  ["Students at Highridge High earn 2 points for each correct answer during a quiz bowl If a student correctly answers all the questions in a round, the student is awarded an additional 4 point bonus. They played a total of five rounds each consisting of five questions. If James only missed one question, how many points did he get?", 64n],
  ["Robert and Teddy are planning to buy snacks for their friends.  Robert orders five boxes of pizza at $10 each box and ten cans of soft drinks at $2 each. Teddy buys six hamburgers at $3 each and an additional ten cans of soft drinks. How much do they spend in all?", 108n],
  ["James invests $2000 a week into his bank account.  He had $250,000 in his account when the year started.  At the end of the year, he gets a windfall that is worth 50% more than what he has in his bank account.   How much money does he have?", 531000n],
  ["James does chores around the class.  There are 3 bedrooms, 1 living room, and 2 bathrooms to clean.  The bedrooms each take 20 minutes to clean.  The living room takes as long as the 3 bedrooms combined.  The bathroom takes twice as long as the living room.  He also cleans the outside which takes twice as long as cleaning the house.  He splits the chores with his 2 siblings who are just as fast as him.  How long, in hours, does he work?", 6n],
  ["During one game, a total of 50 people attended a baseball team’s games. Forty percent and thirty-four percent of the audiences are supporters of the first and second teams, respectively. How many people attended the game did not support either of the teams?", 13n],
  ["Pete has to take a 10-minute walk down to the train station and then board a 1hr 20-minute train to LA. When should he leave if he cannot get to LA later than 0900 hours? (24-hr time)", "07:30"],
]);

export default definePrepare({
  sources: [url("https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl")],
  convert: (entry) => {
    const parts = String(entry.answer).split("####");
    if (parts.length !== 2) throw new Error(`gsm8k: expected one "####" in the answer of: ${entry.question}`);
    const [solution, answer] = parts as [string, string];
    const value = pythonFloat(answer.replace(/,/g, ""));
    return {
      question: entry.question,
      expected_answer: FIXES.get(entry.question) ?? (Number.isInteger(value) ? BigInt(value) : value),
      reference_solution: solution.replace(/<<.*?>>/g, ""),
    };
  },
});
