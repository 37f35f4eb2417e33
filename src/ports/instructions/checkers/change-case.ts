// change_case:capital_word_frequency — words in capitals, as NLTK's word_tokenize splits them.
import { compare, instruction, num, randint, relation } from "../instruction.ts";
import { isUpper } from "../../../python/str.ts";
import { wordTokenize } from "../word-tokenize.ts";

/** "less than" / "at least" `capital_frequency` all-capital tokens (CapitalWordFrequencyChecker). */
export const capitalWordFrequency = instruction(["capital_frequency", "capital_relation"], (kwargs) => {
  const limit = kwargs.capital_frequency === undefined ? randint(1, 20) : num(kwargs.capital_frequency, "capital_frequency");
  const rel = relation(kwargs.capital_relation);
  return (response) => compare(wordTokenize(response).filter(isUpper).length, rel, limit);
});
