// Instruction id → checker, as verifiable-instructions' INSTRUCTION_DICT maps ids to classes. One line per
// checker. An id the library does not have counts as not followed, as NeMo Gym's KeyError does; the ids in
// UNSUPPORTED_INSTRUCTIONS exist there but not here, and the server refuses to score them.
import type { Instruction } from "./instruction.ts";
import { capitalWordFrequency } from "./checkers/change-case.ts";
import { repeatPrompt, twoResponses } from "./checkers/combination.ts";
import { numberPlaceholders, postscript } from "./checkers/content.ts";
import { copy, copyingMultiple, copySpanIdx, repeatPhrase } from "./checkers/copy.ts";
import { countingComposition, countUnique, letterCounting, lowercaseCounting } from "./checkers/count.ts";
import { firstWordAnswer, firstWordSent, lastWordAnswer, lastWordSent } from "./checkers/first-last-word.ts";
import { bigramWrapping, constrainedResponse, jsonFormat, multipleSections, numberBulletLists, numberHighlightedSections, sentenceHyphens, squareBrackets, title } from "./checkers/format.ts";
import * as keywords from "./checkers/keywords.ts";
import { nthParagraphFirstWord, numberParagraphs, numberSentences, numberWords } from "./checkers/length.ts";
import { paragraphs, paragraphs2 } from "./checkers/paragraphs.ts";
import { noComma, noDot, noExclamation } from "./checkers/punctuation.ts";
import { endChecker, quotation } from "./checkers/startend.ts";

export const INSTRUCTIONS: ReadonlyMap<string, Instruction> = new Map([
  ["keywords:existence", keywords.existence],
  ["keywords:frequency", keywords.frequency],
  ["keywords:forbidden_words", keywords.forbiddenWords],
  ["keywords:letter_frequency", keywords.letterFrequency],
  ["length_constraints:number_sentences", numberSentences],
  ["length_constraints:number_paragraphs", numberParagraphs],
  ["length_constraints:number_words", numberWords],
  ["length_constraints:nth_paragraph_first_word", nthParagraphFirstWord],
  ["detectable_content:number_placeholders", numberPlaceholders],
  ["detectable_content:postscript", postscript],
  ["detectable_format:number_bullet_lists", numberBulletLists],
  ["detectable_format:constrained_response", constrainedResponse],
  ["detectable_format:number_highlighted_sections", numberHighlightedSections],
  ["detectable_format:multiple_sections", multipleSections],
  ["detectable_format:json_format", jsonFormat],
  ["detectable_format:title", title],
  ["combination:two_responses", twoResponses],
  ["combination:repeat_prompt", repeatPrompt],
  ["startend:end_checker", endChecker],
  ["change_case:capital_word_frequency", capitalWordFrequency],
  ["punctuation:no_comma", noComma],
  ["startend:quotation", quotation],
  ["copy:repeat_phrase", repeatPhrase],
  ["copy:copy", copy],
  ["new:copy_span_idx", copySpanIdx],
  ["detectable_format:sentence_hyphens", sentenceHyphens],
  ["keywords:no_adjacent_consecutive", keywords.noAdjacentConsecutive],
  ["detectable_format:square_brackets", squareBrackets],
  ["keywords:word_once", keywords.wordOnce],
  ["keywords:word_count_different_numbers", keywords.wordCountDifferentNumbers],
  ["keywords:exclude_word_harder", keywords.excludeWordHarder],
  ["paragraphs:paragraphs", paragraphs],
  ["paragraphs:paragraphs2", paragraphs2],
  ["first_word:first_word_sent", firstWordSent],
  ["first_word:first_word_answer", firstWordAnswer],
  ["last_word:last_word_sent", lastWordSent],
  ["last_word:last_word_answer", lastWordAnswer],
  ["detectable_format:bigram_wrapping", bigramWrapping],
  ["copy:copying_simple", copy],
  ["copy:copying_multiple", copyingMultiple],
  ["punctuation:punctuation_dot", noDot],
  ["punctuation:punctuation_exclamation", noExclamation],
  ["count:lowercase_counting", lowercaseCounting],
  ["letters:letter_counting", letterCounting],
  ["letters:letter_counting2", keywords.letterFrequency],
  ["count:counting_composition", countingComposition],
  ["count:count_unique", countUnique],
  ["count:count_increment_word", keywords.countIncrementWord],
  ["keywords:palindrome", keywords.palindrome],
  ["keywords:keyword_specific_position", keywords.keywordSpecificPosition],
  ["keywords:start_end", keywords.startEnd],
]);

/** Ids of the library's INSTRUCTION_DICT that are not ported: they need langdetect's language profiles. */
export const UNSUPPORTED_INSTRUCTIONS: readonly string[] = ["language:response_language", "change_case:english_capital", "change_case:english_lowercase"];
