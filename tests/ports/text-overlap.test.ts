// NLTK's sentence_bleu and CVDP's ROUGE-n recall against the Python they port. The expected values were produced
// once, outside the tests, with NLTK 3.10.3 (Python 3.11, pip from the local index) calling NeMo Gym's own
// resources_servers/cvdp/cvdp_lib/subjective.py: calculate_BLEU(hypothesis.strip(), reference, n) and
// calculate_ROUGE(hypothesis.strip(), reference, n), printed with repr(); they are literals here, so nothing below
// needs NLTK. A score matches when it is within 1e-12 relative (so the ~1e-154 scores NLTK gives a hypothesis with
// unigram but no bigram matches are checked, not waved through by an absolute tolerance); 0 must be exactly 0.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { cvdpNgrams, cvdpRougeRecall, modifiedPrecision, rougeLScore, rougeNScore, rougeScoreTokens, sentenceBleu, uniformWeights } from "../../src/ports/text-overlap/index.ts";
import { pythonStrip, splitWhitespace, ZeroDivisionError } from "../../src/python/index.ts";

/** [hypothesis, reference, n, BLEU-n, ROUGE-n] as NLTK 3.10.3 / subjective.py computed them. */
const PARITY: [string, string, number, number, number][] = [
  ["The dog slept on the couch.", "The cat sat on the mat.", 2, 0.316227766016838, 0.2],
  ["The cat sat on the mat.", "The cat sat on the mat.", 2, 1.0, 1.0],
  ["completely different words here", "nothing in common at all", 2, 0, 0.0],
  ["the", "the cat sat on the mat", 2, 1.0050780909589607e-156, 0.0],
  ["dog", "the cat sat on the mat", 2, 0, 0.0],
  ["mat the on sat cat the", "the cat sat on the mat", 2, 1.491668146240062e-154, 0.0],
  ["the the the the the the the", "the cat is on the mat", 2, 7.973301625706314e-155, 0.0],
  ["the the the the the the the", "the cat is on the mat", 1, 0.2857142857142857, 0.16666666666666666],
  ["The module counts up on every rising clock edge and resets to zero when rst is high.", "This module is a counter that increments on each rising edge of clk and is reset to zero by rst.", 2, 0.14375413269384182, 0.05263157894736842],
  ["The module counts up on every rising clock edge and resets to zero when rst is high.", "This module is a counter that increments on each rising edge of clk and is reset to zero by rst.", 3, 7.277490303085234e-104, 0.0],
  ["The module counts up on every rising clock edge and resets to zero when rst is high.", "This module is a counter that increments on each rising edge of clk and is reset to zero by rst.", 4, 5.1780028335388675e-155, 0.0],
  ["The FIFO is full when wr_ptr equals rd_ptr with the wrap bit inverted; it is empty when they are equal, wrap bit included. Writes are ignored while full.", "The FIFO asserts full when the write pointer equals the read pointer with the MSB (wrap bit) inverted, and empty when both pointers are equal. A write while full is dropped.", 2, 0.22637484674414998, 0.26666666666666666],
  ["THE CAT SAT", "the cat sat", 2, 0, 1.0],
  ["the cat, sat; on: the mat!", "the cat sat on the mat", 2, 8.612150057732663e-155, 1.0],
  ["a b c d e f g h i j k l m n o p", "a b c", 2, 0.15811388300841897, 1.0],
  ["a b", "a b c d e f g h i j k l m n o p", 2, 0.0009118819655545162, 0.06666666666666667],
  ["line one\nline two\tthree   four", "line one line two three four", 2, 1.0, 1.0],
  ["alpha\u00a0beta\u3000gamma\u001cdelta", "alpha beta gamma delta", 2, 1.0, 1.0],
  ["x\u200by z", "x y z", 2, 6.397495320955232e-155, 0.0],
  ["caf\u00e9 na\u00efve r\u00e9sum\u00e9", "Caf\u00e9 Na\u00efve R\u00e9sum\u00e9", 2, 0, 1.0],
  ["\u0130stanbul \u039f\u0394\u039f\u03a3 stra\u00dfe", "i\u0307stanbul \u03bf\u03b4\u03bf\u03c2 strasse", 2, 0, 0.5],
  ["data_in feeds the dual-port RAM at 8'b0000_0001", "data_in feeds the dualport ram at 8b0000_0001", 2, 0.4364357804719847, 1.0],
  ["the cat the cat the cat", "the cat the cat the cat", 2, 1.0, 0.4],
  ["one two three", "one two three", 1, 1.0, 1.0],
  ["word", "word", 1, 1.0, 1.0],
  ["sig1 sig2 sig3 sig4 sig5 sig6 sig7 sig8 sig9", "sig9 sig8 sig7 sig6 sig5 sig4 sig3 sig2 sig1", 2, 1.491668146240062e-154, 0.0],
  ["The output is registered. The output is registered. The output is registered.", "The output is registered.", 2, 0.30151134457776363, 1.0],
  ["assign y = a & b ;", "assign y = a & b ;", 2, 1.0, 1.0],
  ["assign y = a | b ;", "assign y = a & b ;", 2, 0.7559289460184544, 1.0],
];

/** [hypothesis, reference, n, BLEU-n]: subjective.py's ROUGE raised ZeroDivisionError('division by zero') on these. */
const ROUGE_DIVIDES_BY_ZERO: [string, string, number, number][] = [
  ["anything at all", "single", 2, 0],
  ["some answer", "   \n\t ", 2, 0],
  ["... !!", "... !! ??", 2, 0.6065306597126334],
  ["a b", "a b", 3, 2.8126442852363145e-103],
  ["word", "word", 2, 1.491668146240062e-154],
];

/** CVDP's calculate_BLEU: whitespace tokens, one reference, uniform weights over 1..n. */
const cvdpBleu = (hypothesis: string, reference: string, n: number) => sentenceBleu([splitWhitespace(reference)], splitWhitespace(hypothesis), uniformWeights(n));

function assertClose(actual: number, expected: number, label: string) {
  if (expected === 0) return assert.equal(actual, 0, label);
  assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.abs(expected), `${label}: ${actual} vs NLTK's ${expected}`);
}

describe("BLEU and ROUGE: NLTK 3.10.3 / CVDP parity table", () => {
  test(`${PARITY.length} pairs: BLEU-n and ROUGE-n recall`, () => {
    for (const [hypothesis, reference, n, bleu, rouge] of PARITY) {
      const label = `${JSON.stringify(hypothesis)} vs ${JSON.stringify(reference)}, n=${n}`;
      assertClose(cvdpBleu(pythonStrip(hypothesis), reference, n), bleu, `BLEU ${label}`);
      assertClose(cvdpRougeRecall(pythonStrip(hypothesis), reference, n), rouge, `ROUGE ${label}`);
    }
  });

  test(`${ROUGE_DIVIDES_BY_ZERO.length} references with fewer than n words (after stripping punctuation): BLEU scores, ROUGE raises ZeroDivisionError`, () => {
    for (const [hypothesis, reference, n, bleu] of ROUGE_DIVIDES_BY_ZERO) {
      assertClose(cvdpBleu(pythonStrip(hypothesis), reference, n), bleu, `BLEU ${JSON.stringify(reference)}`);
      assert.throws(() => cvdpRougeRecall(pythonStrip(hypothesis), reference, n), (error: unknown) => error instanceof ZeroDivisionError && error.repr() === "ZeroDivisionError('division by zero')");
    }
  });
});

describe("sentenceBleu edges (NLTK semantics)", () => {
  test("an empty hypothesis scores 0 (NLTK returns 0 before the brevity penalty's 0 matters)", () => {
    assert.equal(sentenceBleu([["a", "b"]], [], [0.5, 0.5]), 0);
  });

  test("no unigram match is exactly 0; unigrams but no bigrams is NLTK's float_info.min precision, tiny but not 0", () => {
    assert.equal(cvdpBleu("dog", "the cat sat", 2), 0);
    const tiny = cvdpBleu("the cat", "the dog cat", 2);
    assert.ok(tiny > 0 && tiny < 1e-150, String(tiny));
  });

  test("modified precision clips each n-gram at its count in the reference; the denominator is at least 1", () => {
    assert.deepEqual(modifiedPrecision([["the", "cat", "the"]], ["the", "the", "the", "the"], 1), { numerator: 2, denominator: 4 });
    assert.deepEqual(modifiedPrecision([["a", "b"]], ["a"], 2), { numerator: 0, denominator: 1 });
    // Over several references, each n-gram is clipped at the largest count in any one of them.
    assert.deepEqual(modifiedPrecision([["the", "x"], ["the", "the", "y"]], ["the", "the", "the"], 1), { numerator: 2, denominator: 3 });
  });

  test("the brevity penalty takes the reference length closest to the hypothesis', the shorter on a tie", () => {
    // Hypothesis of 4 tokens, references of 2 and 6: both 2 away, so r = 2 < 4 and there is no penalty.
    const hypothesis = ["a", "b", "c", "d"];
    assert.equal(sentenceBleu([["a", "b"], ["a", "b", "c", "d", "e", "f"]], hypothesis, [1]), 1);
    // With only the 6-token reference the penalty is exp(1 - 6/4).
    assert.equal(sentenceBleu([["a", "b", "c", "d", "e", "f"]], hypothesis, [1]), 0.6065306597126334); // Python: math.exp(1 - 6 / 4)
  });
});

describe("cvdpNgrams (CVDP's preprocessing)", () => {
  test("lower-cases, deletes what is neither \\w nor \\s (underscores and digits stay, hyphens and apostrophes go), splits on Python whitespace", () => {
    assert.deepEqual(cvdpNgrams("Data_In feeds the dual-port RAM at 8'b0000_0001.", 1), ["data_in", "feeds", "the", "dualport", "ram", "at", "8b0000_0001"]);
    assert.deepEqual(cvdpNgrams("a\u00a0b\x1cc", 2), ["a b", "b c"]);
    assert.deepEqual(cvdpNgrams("one", 2), []);
  });

  test("recall counts distinct shared n-grams over all reference n-grams, repeats included", () => {
    // "the cat the cat": bigrams [the cat, cat the, the cat]; 2 distinct shared over 3.
    assert.equal(cvdpRougeRecall("the cat the cat", "the cat the cat", 2), 2 / 3);
  });
});

// rouge-score's RougeScorer (use_stemmer=False), as iheval scores translations (ROUGE-L F) and TensorTrust leaks
// (ROUGE-1 recall). Expected (precision, recall, fmeasure) triples: rouge-score's tokenizer and scorers, run in Python.
describe("rouge-score", () => {
  const ROUGE: [string, string, [number, number, number], [number, number, number], [number, number, number]][] = [
    ["the cat sat on the mat", "the cat was on the mat", [5 / 6, 5 / 6, 0.8333333333333334], [5 / 6, 5 / 6, 0.8333333333333334], [0.6, 0.6, 0.6]],
    ["El gato está en la alfombra", "el gato esta en la alfombra", [5 / 6, 5 / 6, 0.8333333333333334], [5 / 6, 5 / 6, 0.8333333333333334], [0.6, 0.6, 0.6]],
    ["a b c d", "d c b a", [0.25, 0.25, 0.25], [1, 1, 1], [0, 0, 0]],
    ["", "x", [0, 0, 0], [0, 0, 0], [0, 0, 0]],
    ["Ünïcode İstanbul straße", "unicode istanbul strasse", [0, 0, 0], [0, 0, 0], [0, 0, 0]],
    ["one, two; three!", "ONE two-three", [1, 1, 1], [1, 1, 1], [1, 1, 1]],
    ["the the the", "the", [1, 1 / 3, 0.5], [1, 1 / 3, 0.5], [0, 0, 0]],
    ["日本語 text 123", "text 123 日本語", [1, 1, 1], [1, 1, 1], [1, 1, 1]],
  ];
  const triple = (score: { precision: number; recall: number; fmeasure: number }) => [score.precision, score.recall, score.fmeasure];

  test("the tokenizer lower-cases and keeps only ASCII letter/digit runs", () => {
    assert.deepEqual(rougeScoreTokens("Ünïcode İstanbul straße \u212a"), ["n", "code", "i", "stanbul", "stra", "e", "k"]);
  });

  test("ROUGE-L, ROUGE-1 and ROUGE-2 as rouge-score computes them", () => {
    for (const [target, prediction, l, one, two] of ROUGE) {
      assert.deepEqual(triple(rougeLScore(target, prediction)), l, `L ${target} | ${prediction}`);
      assert.deepEqual(triple(rougeNScore(target, prediction, 1)), one, `1 ${target} | ${prediction}`);
      assert.deepEqual(triple(rougeNScore(target, prediction, 2)), two, `2 ${target} | ${prediction}`);
    }
  });
});
