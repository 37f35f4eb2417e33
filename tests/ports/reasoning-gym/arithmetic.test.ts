// reasoning-gym's arithmetic scorers (expected values checked against the library's code run under python3):
// Decimal equality (chain_sum, products, decimal_chain_sum), the 10^-3 tolerance of decimal_arithmetic, 3
// significant figures (power_function), the first number (gsm_symbolic), number_format, fraction_simplification,
// prime_factorization, dice.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { scoreAnswer, type Entry } from "../../../src/ports/reasoning-gym/index.ts";

const entry = (answer: string | null, metadata: Record<string, unknown> = {}): Entry => ({ question: "q", answer, metadata });
const score = (task: string, answer: string | null, oracle: string | null, metadata: Record<string, unknown> = {}) => scoreAnswer(task, answer, entry(oracle, metadata));

describe("chain_sum and products (compute_decimal_reward)", () => {
  test("the same value with sign, leading zeros, trailing decimals, commas or underscores is 1.0", () => {
    for (const answer of ["1000", "+01,000.00", "1e3", "1_000", "1__000", " 1000\n", "١٠٠٠"]) assert.equal(score("chain_sum", answer, "1000"), 1, answer);
    assert.equal(score("products", "-56.0", "-56"), 1);
  });

  test("the oracle inside a longer answer gets substring credit on the comma-less texts", () => {
    assert.equal(score("chain_sum", "the answer is 1,000", "1000"), 4 / 18);
    assert.equal(score("chain_sum", "NaN", "NaN"), 1, "NaN != NaN as Decimals, but the text is the oracle");
  });

  test("another number, text, NaN and no answer are 0.0; a null oracle raises (0.0 in NeMo Gym)", () => {
    assert.equal(score("chain_sum", "999", "1000"), 0);
    assert.equal(score("chain_sum", "NaN", "1000"), 0);
    assert.equal(score("chain_sum", "", "1000"), 0);
    assert.equal(score("chain_sum", null, "1000"), 0);
    assert.throws(() => score("chain_sum", "1000", null));
  });
});

describe("decimal_chain_sum and decimal_arithmetic", () => {
  test("decimal_chain_sum: the same Decimal value → 1.0, anything else → 0.0", () => {
    assert.equal(score("decimal_chain_sum", " 12.3450 ", "12.345"), 1);
    assert.equal(score("decimal_chain_sum", "12.346", "12.345"), 0);
    assert.equal(score("decimal_chain_sum", "1,000", "1000"), 0, "no comma stripping here");
    assert.equal(score("decimal_chain_sum", "sNaN", "1"), 0);
  });

  test("decimal_arithmetic: within 0.001 of the oracle (the default config's 3 places) → 1.0", () => {
    assert.equal(score("decimal_arithmetic", "12.346", "12.345"), 1);
    assert.equal(score("decimal_arithmetic", "12.344", "12.345"), 1);
    assert.equal(score("decimal_arithmetic", "12.3461", "12.345"), 0);
  });

  test("decimal_arithmetic computes in Decimal's 28-digit context: a difference that rounds to 0.001 counts", () => {
    assert.equal(score("decimal_arithmetic", "0.0010000000000000000000000000001", "0"), 1);
    assert.equal(score("decimal_arithmetic", "0.001000000000000000000000001", "0"), 0);
  });

  test("decimal_arithmetic: infinities, NaN, text and a null oracle are 0.0", () => {
    for (const answer of ["inf", "NaN", "twelve", ""]) assert.equal(score("decimal_arithmetic", answer, "12.345"), 0, answer);
    assert.equal(score("decimal_arithmetic", "1", null), 0);
  });
});

describe("power_function", () => {
  test("the same value to 3 significant figures (half-even rounding) → 1.0", () => {
    assert.equal(score("power_function", "1.23e+4", "12345.678"), 1);
    assert.equal(score("power_function", "12250", "12249"), 1);
    assert.equal(score("power_function", "12350", "12.4e3"), 1);
    assert.equal(score("power_function", "0.0", "0"), 1);
  });

  test("any other answer, readable or not, is 0.01; no answer is 0.0", () => {
    assert.equal(score("power_function", "1.24e+4", "12345.678"), 0.01);
    assert.equal(score("power_function", "about 12000", "12345.678"), 0.01);
    assert.equal(score("power_function", "inf", "inf"), 0.01);
    assert.equal(score("power_function", "0", "0.001"), 0.01);
    assert.equal(score("power_function", null, "1"), 0);
  });
});

describe("gsm_symbolic", () => {
  test("the first number in the answer equal as a float → 1.0; another → 0.01; none → 0.0", () => {
    assert.equal(score("gsm_symbolic", "She has 56.0 apples, not 3", "56"), 1);
    assert.equal(score("gsm_symbolic", "3 then 56", "56"), 0.01);
    assert.equal(score("gsm_symbolic", "no number", "56"), 0);
    assert.equal(score("gsm_symbolic", null, "56"), 0);
  });

  test("a minus after a space is not part of the number (\\b before '-'), one glued to a word is", () => {
    assert.equal(score("gsm_symbolic", "-3.5", "3.5"), 1);
    assert.equal(score("gsm_symbolic", "x-3.5", "-3.5"), 1);
  });

  test("digits glued to letters are no number; Unicode digits are", () => {
    assert.equal(score("gsm_symbolic", "56kg", "56"), 0);
    assert.equal(score("gsm_symbolic", "٥٦", "56"), 1);
  });

  test("an oracle that is no number is 0.0", () => {
    assert.equal(score("gsm_symbolic", "56", "fifty-six"), 0);
    assert.equal(score("gsm_symbolic", "56", null), 0);
  });
});

describe("number_format", () => {
  test("float(answer without commas) within 0.01 of metadata.solution → 1.0", () => {
    assert.equal(score("number_format", " 1,000.005 ", "x", { solution: 1000 }), 1);
    assert.equal(score("number_format", "1000.02", "x", { solution: 1000 }), 0);
  });

  test("a solution that is no number, text and an empty answer are 0.0; a missing solution raises", () => {
    assert.equal(score("number_format", "1000", "x", { solution: "1000" }), 0);
    assert.equal(score("number_format", "a thousand", "x", { solution: 1000 }), 0);
    assert.equal(score("number_format", "", "x", { solution: 1000 }), 0);
    assert.throws(() => score("number_format", "1000", "x"));
  });
});

describe("fraction_simplification", () => {
  const metadata = { numerator: 18, denominator: 24, simplified_numerator: 3, simplified_denominator: 4 };

  test("the simplified fraction as a/b, $a/b$ or \\frac{a}{b} → 1.0", () => {
    for (const answer of ["3/4", " 3 / 4 ", "$3/4$", "\\frac{3}{4}", "\\DFrac {3} {4} and more", "٣/٤"]) assert.equal(score("fraction_simplification", answer, "3/4", metadata), 1, answer);
  });

  test("the original numerator or denominator kept → 0.1; another fraction → 0.05", () => {
    assert.equal(score("fraction_simplification", "18/5", "3/4", metadata), 0.1);
    assert.equal(score("fraction_simplification", "6/8", "3/4", metadata), 0.05);
  });

  test("no fraction, an unreadable one, no answer or missing metadata → 0.01", () => {
    for (const answer of ["0.75", "3/4.0", "x \\frac{3}{4}", "", null]) assert.equal(score("fraction_simplification", answer, "3/4", metadata), 0.01, String(answer));
    assert.equal(score("fraction_simplification", "3/4", "3/4", {}), 0.01);
  });
});

describe("prime_factorization", () => {
  test("the same factors in any order → 1.0; other factors with the same product → 0.5; else 0.01", () => {
    assert.equal(score("prime_factorization", "3 × 2×2", "2 × 2 × 3"), 1);
    assert.equal(score("prime_factorization", "4 × 3", "2 × 2 × 3"), 0.5);
    assert.equal(score("prime_factorization", "2 × 2 × 5", "2 × 2 × 3"), 0.01);
    assert.equal(score("prime_factorization", "", "2 × 2 × 3"), 0.01);
  });

  test("a factor that is not an integer raises (0.0 in NeMo Gym); no answer is 0.0", () => {
    assert.throws(() => score("prime_factorization", "2 x 2 x 3", "2 × 2 × 3"));
    assert.equal(score("prime_factorization", null, "2 × 2 × 3"), 0);
  });
});

test("dice: equal ignoring case and newlines", () => {
  assert.equal(score("dice", "1/6\n", "1/6"), 1);
  assert.equal(score("dice", "2/12", "1/6"), 0);
});
