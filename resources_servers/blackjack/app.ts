// NeMo Gym's blackjack: the model is dealt two cards against the dealer's two (one shown) and answers
// <action>hit</action> or <action>stand</action> (anything else stands). A bust loses at once (-1); on standing the
// dealer draws to 17 and the hands compare: +1 win (or dealer bust), 0 draw, -1 loss. Cards are drawn with
// replacement, each rank equally likely, from an RNG of each episode's own: NeMo Gym's `random.Random()`, seeded
// from the OS, so no two runs deal alike and a stored rollout cannot be replayed (/verify answers 501).
import { randomBytes } from "node:crypto";
import { extractText, gymnasiumServer } from "../../src/server/index.ts";
import { PythonRandom } from "../../src/python/random.ts";
import { pythonSearch } from "../../src/python/re/index.ts";

const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"] as const;
type Rank = (typeof RANKS)[number];

interface Hands {
  player: Rank[];
  dealer: Rank[];
  rng: PythonRandom;
}

/** `rng.choice(RANKS)`, as CPython draws it. */
const deal = (rng: PythonRandom): Rank => RANKS[rng.randbelow(RANKS.length)]!;

/** Face cards 10, an ace 11 until the hand would bust, then 1. */
export function handValue(hand: readonly Rank[]): number {
  let total = hand.reduce((sum, rank) => sum + (rank === "J" || rank === "Q" || rank === "K" ? 10 : rank === "A" ? 11 : Number(rank)), 0);
  let aces = hand.filter((rank) => rank === "A").length;
  while (total > 21 && aces > 0) {
    total -= 10;
    aces--;
  }
  return total;
}

const shown = (hand: readonly Rank[]) => `[${hand.join(", ")}]`;
const prompt = (player: readonly Rank[], dealer: readonly Rank[]) =>
  `Your hand: ${shown(player)} = ${handValue(player)}\nDealer shows: ${dealer[0]}\nRespond with <action>hit</action> or <action>stand</action>.`;

/** Python's `random.Random()`: seeded from the OS, a fresh one per episode. */
const osSeededRandom = () => new PythonRandom(BigInt(`0x${randomBytes(32).toString("hex")}`));

/** The server, dealing from the RNG `newRandom` gives each episode (a seeded one in tests). */
export function blackjackServer(newRandom: () => PythonRandom = osSeededRandom) {
  return gymnasiumServer({
    name: "BlackjackEnv",
    replayable: false,
    reset: () => {
      const rng = newRandom();
      const player = [deal(rng), deal(rng)];
      const dealer = [deal(rng), deal(rng)];
      return { state: { player, dealer, rng } satisfies Hands, observation: prompt(player, dealer) };
    },
    step: ({ player, dealer, rng }: Hands, action) => {
      const decision = pythonSearch(String.raw`<action>\s*(hit|stand)\s*</action>`, extractText(action), { ignoreCase: true })?.groups[1]?.toLowerCase() ?? "stand";
      if (decision === "hit") {
        player.push(deal(rng));
        const value = handValue(player);
        if (value > 21) return { reward: -1, terminated: true, info: { result: "bust", player: shown(player), value } };
        return { observation: prompt(player, dealer) };
      }
      while (handValue(dealer) < 17) dealer.push(deal(rng));
      const [playerValue, dealerValue] = [handValue(player), handValue(dealer)];
      const [reward, result] = dealerValue > 21 || playerValue > dealerValue ? [1, "win"] : playerValue === dealerValue ? [0, "draw"] : [-1, "loss"];
      return { reward, terminated: true, info: { result, player: shown(player), player_value: playerValue, dealer: shown(dealer), dealer_value: dealerValue } };
    },
  });
}

export default blackjackServer();
