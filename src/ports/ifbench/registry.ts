// Instruction id → checker, as IFBench's instructions_registry.INSTRUCTION_DICT maps ids to classes (allenai/IFBench
// at c6767a1, the commit NeMo Gym pins). Two ids need what this port does not have: they are in UNSUPPORTED, with
// what is missing, and the server refuses to score them rather than guess.
import type { IfbenchInstruction } from "./instruction.ts";
import * as count from "./checkers/count.ts";
import * as custom from "./checkers/custom.ts";
import * as format from "./checkers/format.ts";
import * as ratio from "./checkers/ratio.ts";
import * as repeat from "./checkers/repeat.ts";
import * as sentence from "./checkers/sentence.ts";
import * as words from "./checkers/words.ts";

export const IFBENCH_INSTRUCTIONS: ReadonlyMap<string, IfbenchInstruction> = new Map([
  ["count:word_count_range", count.wordCountRange],
  ["count:unique_word_count", count.uniqueWordCount],
  ["ratio:stop_words", ratio.stopWords],
  ["ratio:sentence_type", ratio.sentenceType],
  ["ratio:sentence_balance", ratio.sentenceBalance],
  ["count:conjunctions", count.conjunctions],
  ["count:person_names", count.personNames],
  ["ratio:overlap", ratio.overlap],
  ["count:numbers", count.numbers],
  ["words:alphabet", words.alphabet],
  ["words:vowel", words.vowel],
  ["words:consonants", words.consonants],
  ["sentence:alliteration_increment", sentence.alliterationIncrement],
  ["words:palindrome", words.palindrome],
  ["count:punctuation", count.punctuation],
  ["format:parentheses", format.parentheses],
  ["format:quotes", format.quotes],
  ["words:prime_lengths", words.primeLengths],
  ["format:options", format.options],
  ["format:newline", format.newline],
  ["format:emoji", format.emoji],
  ["ratio:sentence_words", ratio.sentenceWords],
  ["count:words_japanese", count.wordsJapanese],
  ["words:repeats", words.repeats],
  ["sentence:keyword", sentence.keyword],
  ["count:pronouns", count.pronouns],
  ["words:last_first", words.lastFirst],
  ["words:paragraph_last_first", words.paragraphLastFirst],
  ["sentence:increment", sentence.increment],
  ["words:no_consecutive", words.noConsecutive],
  ["format:line_indent", format.lineIndent],
  ["format:quote_unquote", format.quoteUnquote],
  ["format:list", format.list],
  ["format:thesis", format.thesis],
  ["format:sub-bullets", format.subBullets],
  ["format:no_bullets_bullets", format.noBulletsBullets],
  ["custom:multiples", custom.multiples],
  ["custom:mcq_count_length", custom.mcqCountLength],
  ["custom:reverse_newline", custom.reverseNewline],
  ["custom:word_reverse", custom.wordReverse],
  ["custom:character_reverse", custom.characterReverse],
  ["custom:sentence_alphabet", custom.sentenceAlphabet],
  ["custom:european_capitals_sort", custom.europeanCapitalsSort],
  ["custom:csv_city", custom.csvCity],
  ["custom:csv_special_character", custom.csvSpecialCharacter],
  ["custom:csv_quotes", custom.csvQuotes],
  ["custom:date_format_list", custom.dateFormatList],
  ["count:keywords_multiple", count.keywordsMultiple],
  ["words:keywords_specific_position", words.keywordsSpecificPosition],
  ["words:words_position", words.wordsPosition],
  ["repeat:repeat_change", repeat.repeatChange],
  ["repeat:repeat_simple", repeat.repeatSimple],
  ["repeat:repeat_span", repeat.repeatSpan],
  ["format:title_case", format.titleCase],
  ["format:output_template", format.outputTemplate],
  ["format:no_whitespace", format.noWhitespace],
]);

/**
 * Ids of INSTRUCTION_DICT this port cannot check, with what they need. Both checkers take no arguments; their
 * verdict rests entirely on the missing piece.
 */
export const UNSUPPORTED_IFBENCH_INSTRUCTIONS: ReadonlyMap<string, string> = new Map([
  // StartWithVerbChecker: 'VB' in nltk.pos_tag(nltk.word_tokenize(text))[0][1]. The tag of the first token comes
  // from the perceptron's learned weights (over the first three tokens), which no package here ships.
  ["words:start_verb", "NLTK's averaged_perceptron_tagger_eng model (nltk.pos_tag)"],
  // AlternateParitySyllablesChecker: syllapy.count looks each word up in syllapy's bundled dictionary first.
  ["words:odd_even_syllables", "syllapy's word dictionary (syllapy.count)"],
]);
