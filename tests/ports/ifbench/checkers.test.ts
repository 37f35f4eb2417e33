// IFBench's checkers (src/ports/ifbench) case by case: each row is an instruction id, its kwargs, a response and the
// verdict of AllenAI's own checker (IFBench at c6767a1, the commit NeMo Gym pins) on it — build_description(**kwargs)
// then check_following(response), an exception counting as not followed. The word_tokenize rows (title case,
// keyword positions) were worked out from NLTK's Treebank tokens; every other verdict was printed by the library.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildIfbenchInstruction, IFBENCH_INSTRUCTIONS, UNSUPPORTED_IFBENCH_INSTRUCTIONS, UnsupportedInstructionError } from "../../../src/ports/ifbench/index.ts";
import { InstructionError, RandomWordError } from "../../../src/ports/instructions/instruction.ts";

/** build_description then check_following; any exception is "not followed", as NeMo Gym counts it. */
function follows(id: string, kwargs: unknown, response: string): boolean {
  try {
    return buildIfbenchInstruction(id, kwargs)(response);
  } catch (error) {
    if (error instanceof UnsupportedInstructionError) throw error;
    return false;
  }
}

const CASES: [id: string, kwargs: Record<string, unknown>, response: string, followed: boolean][] = [
  ["count:word_count_range", {"min_words": 3, "max_words": 5}, "one two, three four", true],
  ["count:word_count_range", {"min_words": 3, "max_words": 5}, "one two", false],
  ["count:unique_word_count", {"N": 3}, "Yes yes YES! no, maybe.", true],
  ["count:unique_word_count", {"N": 4}, "Yes yes YES! no, maybe.", false],
  ["ratio:stop_words", {"percentage": 50}, "The cat is on a mat", false],
  ["ratio:stop_words", {"percentage": 70}, "The cat is on a mat", true],
  ["ratio:stop_words", {"percentage": 60}, "... !!!", false],
  ["ratio:sentence_type", {}, "One. Two. Why?", true],
  ["ratio:sentence_type", {}, "One. Why?", false],
  ["ratio:sentence_balance", {}, "Yes. No? Wow!", true],
  ["ratio:sentence_balance", {}, "Yes. No?", false],
  ["count:conjunctions", {"small_n": 3}, "and And and, but", true],
  ["count:conjunctions", {"small_n": 3}, "and and but", false],
  ["count:person_names", {"N": 2}, "Emma met Liam and Emmanuel.", true],
  ["count:person_names", {"N": 3}, "Emma met Liam.", false],
  ["ratio:overlap", {"reference_text": "abcdef", "percentage": 50}, "abcxyz", false],
  ["ratio:overlap", {"reference_text": "abcdef", "percentage": 50}, "abxy", false],
  ["ratio:overlap", {"reference_text": "abcdef", "percentage": 50}, "abcdxy", true],
  ["ratio:overlap", {"percentage": 50}, "abcxyz", false],
  ["count:numbers", {"N": 2}, "Pi is 3.14 and e is 2.71", true],
  ["count:numbers", {"N": 4}, "Pi is 3.14 and e is 2.71", false],
  ["words:alphabet", {}, "Apple, banana; cherry... zebra", false],
  ["words:alphabet", {}, "Yak zebra apple bee", true],
  ["words:alphabet", {}, "1 apple", false],
  ["words:vowel", {}, "a cat sat on a mat", true],
  ["words:vowel", {}, "a cat sat on a big mat, quickly", false],
  ["words:vowel", {}, "cat\nsat", false],
  ["words:consonants", {}, "strong crypts", true],
  ["words:consonants", {}, "strong idea", false],
  ["sentence:alliteration_increment", {}, "Big bad wolf. Silly sad snakes slither.", true],
  ["sentence:alliteration_increment", {}, "Silly sad snakes slither. Big bad wolf.", false],
  ["words:palindrome", {}, "level rotor civic kayak refer radar madam stats tenet sagas", true],
  ["words:palindrome", {}, "level rotor civic kayak refer radar madam stats tenet", false],
  ["count:punctuation", {}, "Wait?! Yes, no; maybe: ok.", false],
  ["count:punctuation", {}, "Wait?! Yes, no; maybe: ok", false],
  ["count:punctuation", {}, "Wait?! Yes, no; maybe: ok. Why? Wow!", true],
  ["format:parentheses", {}, "(a [b {c (d [e] ) } ] )", true],
  ["format:parentheses", {}, "(a [b {c (d ) } ] )", false],
  ["format:parentheses", {}, "((((x]))))", false],
  ["format:quotes", {}, "\"a 'b \"c\" b' a\"", true],
  ["format:quotes", {}, "\"a 'b' a\"", false],
  ["words:prime_lengths", {}, "at the house, we sat", true],
  ["words:prime_lengths", {}, "a cat", false],
  ["format:options", {"options": "yes/no/maybe"}, "Maybe.", true],
  ["format:options", {"options": "a), b), c), d)"}, "b)", true],
  ["format:options", {"options": "a), b), c), d)"}, "b", false],
  ["format:options", {"options": "I know or I don't know"}, "I don't know!", true],
  ["format:newline", {}, "one\ntwo\n\nthree", true],
  ["format:newline", {}, "one two\nthree", false],
  ["format:emoji", {}, "Hello 😀. Bye 🎉!", true],
  ["format:emoji", {}, "Hello. 😀 Bye 🎉", true],
  ["format:emoji", {}, "Hello 😀. Bye", false],
  ["format:emoji", {}, "Price #1. Flag 🇫🇷", false],
  ["ratio:sentence_words", {}, "Cat sat. Dog ran. Pig hid.", true],
  ["ratio:sentence_words", {}, "Cat sat. Dog ran. Pigs hid.", false],
  ["count:words_japanese", {"N": 2}, "one 日本 three カタカナ five", true],
  ["count:words_japanese", {"N": 2}, "one two three", false],
  ["count:words_japanese", {"N": 2}, "one 42 three ② five", true],
  ["count:words_japanese", {"N": 0}, "one", false],
  ["count:words_japanese", {}, "one", false],
  ["words:repeats", {"small_n": 2}, "the cat, the dog, The bird", false],
  ["words:repeats", {"small_n": 3}, "the cat, the dog, The bird", true],
  ["sentence:keyword", {"word": "Dog", "N": 2}, "A cat. The dog barks.", true],
  ["sentence:keyword", {"word": "dog", "N": 3}, "A cat. The dog barks.", false],
  ["sentence:keyword", {"word": "barks", "N": 0}, "A cat. The dog barks.", true],
  ["count:pronouns", {"N": 4}, "I told her/him that they're mine.", true],
  ["count:pronouns", {"N": 5}, "I told her/him that they're mine.", false],
  ["words:last_first", {}, "I like cats. Cats like me.", true],
  ["words:last_first", {}, "I like cats. Dogs like me.", false],
  ["words:last_first", {}, "I like cats. ...", false],
  ["words:paragraph_last_first", {}, "Hello world hello.\n\nStop and stop", true],
  ["words:paragraph_last_first", {}, "Hello world.\nStop and stop", false],
  ["sentence:increment", {"small_n": 1}, "One two. One two three. A b c d.", true],
  ["sentence:increment", {"small_n": 2}, "One two. One two three.", false],
  ["words:no_consecutive", {}, "apple banana apple cherry", true],
  ["words:no_consecutive", {}, "apple Avocado banana", false],
  ["format:line_indent", {}, "a\n b\n  c", true],
  ["format:line_indent", {}, "a\n\n\n b\n  c", false],
  ["format:line_indent", {}, "a\n \n \n b", false],
  ["format:line_indent", {}, "a\n b\n b", false],
  ["format:quote_unquote", {}, "He said “yes” quietly.", true],
  ["format:quote_unquote", {}, "He said \"yes\" \"no\" quietly.", false],
  ["format:quote_unquote", {}, "He said \"yes\".", false],
  ["format:quote_unquote", {}, "...", false],
  ["format:list", {"sep": "..."}, "... one ... two", true],
  ["format:list", {"sep": "..."}, "... one", false],
  ["format:thesis", {}, "<i>Cats rule.</i> Because.", true],
  ["format:thesis", {}, "<em>Cats rule.</em> Because.", true],
  ["format:thesis", {}, "<i>Cats rule.</i>", false],
  ["format:sub-bullets", {}, "* a\n - b\n* c\n - d", true],
  ["format:sub-bullets", {}, "* a\n - b\n* c", false],
  ["format:no_bullets_bullets", {}, "One. Two.\n* a\n* b", true],
  ["format:no_bullets_bullets", {}, "One. Two.\n\n* a\n* b", true],
  ["format:no_bullets_bullets", {}, "One.\n* a\n* b", false],
  ["custom:multiples", {}, "14, 21, 28, 35, 42, 49", true],
  ["custom:multiples", {}, "7, 14, 21, 28, 35, 42, 49", false],
  ["custom:mcq_count_length", {}, "Question 1: Q?\nA. a\nB. b\nC. c\nD. d\nE. e\nQuestion 2: QQ?\nA. a\nB. b\nC. c\nD. d\nE. e\nQuestion 3: QQQ?\nA. a\nB. b\nC. c\nD. d\nE. e\nQuestion 4: QQQQ?\nA) a\nB) b\nC) c\nD) d\nE) e", true],
  ["custom:mcq_count_length", {}, "Here: Question 1: Q?\nA. a\nB. b\nC. c\nD. d\nE. e", false],
  ["custom:word_reverse", {}, "Eagle bald the is it.", true],
  ["custom:word_reverse", {}, "The bald eagle.", false],
  ["custom:character_reverse", {}, "ELGAE DLAB", true],
  ["custom:character_reverse", {}, "The bald eagle.", false],
  ["custom:sentence_alphabet", {}, "Ax. Bx. Cx. Dx. Ex. Fx. Gx. Hx. Ix. Jx. Kx. Lx. Mx. Nx. Ox. Px. Qx. Rx. Sx. Tx. Ux. Vx. Wx. Xx. Yx. Zx.", true],
  ["custom:sentence_alphabet", {}, "Ax. Bx. Cx. Dx. Ex. Fx. Gx. Hx. Ix. Jx. Kx. Lx. Mx. Nx. Ox. Px. Qx. Rx. Sx. Tx. Ux. Vx. Wx. Xx. Yx.", false],
  ["custom:european_capitals_sort", {}, "Reykjavík, Helsinki, Oslo, Tallinn, Stockholm, Riga, Moscow, Copenhagen, Vilnius, Minsk, Dublin, Berlin, Amsterdam, Warsaw, London, Brussels, Prague, Luxembourg, Paris, Vienna, Bratislava, Budapest, Vaduz, Chișinău, Bern, Ljubljana, Zagreb,", true],
  ["custom:european_capitals_sort", {}, "Reykjavik, Oslo", false],
  ["custom:csv_city", {}, "ID,Country,City,Year,Count\n0,France,\"Paris, Ile\",2020,0\n1,France,\"Paris, Ile\",2020,1\n2,France,\"Paris, Ile\",2020,2\n3,France,\"Paris, Ile\",2020,3\n4,France,\"Paris, Ile\",2020,4\n5,France,\"Paris, Ile\",2020,5\n6,France,\"Paris, Ile\",2020,6", true],
  ["custom:csv_city", {}, "ID,Country,City,Year,Count\r\n0,France,Paris,2020,0\r\n1,France,Paris,2020,1\r\n2,France,Paris,2020,2\r\n3,France,Paris,2020,3\r\n4,France,Paris,2020,4\r\n5,France,Paris,2020,5\r\n6,France,Paris,2020,6\rx", false],
  ["custom:csv_special_character", {}, "ProductID,Category,Brand,Price,Stock\n0,Toys,\"Acme & Co\",9.99,0\n1,Toys,\"Acme & Co\",9.99,1\n2,Toys,\"Acme & Co\",9.99,2\n3,Toys,\"Acme & Co\",9.99,3\n4,Toys,\"Acme & Co\",9.99,4\n5,Toys,\"Acme & Co\",9.99,5\n6,Toys,\"Acme & Co\",9.99,6\n7,Toys,\"Acme & Co\",9.99,7\n8,Toys,\"Acme & Co\",9.99,8\n9,Toys,\"Acme & Co\",9.99,9\n10,Toys,\"Acme & Co\",9.99,10\n11,Toys,\"Acme & Co\",9.99,11\n12,Toys,\"Acme & Co\",9.99,12\n13,Toys,\"Acme & Co\",9.99,13", true],
  ["custom:csv_special_character", {}, "ProductID,Category,Brand,Price,Stock\n0,Toys,Acme,9.99,0\n1,Toys,Acme,9.99,1\n2,Toys,Acme,9.99,2\n3,Toys,Acme,9.99,3\n4,Toys,Acme,9.99,4\n5,Toys,Acme,9.99,5\n6,Toys,Acme,9.99,6\n7,Toys,Acme,9.99,7\n8,Toys,Acme,9.99,8\n9,Toys,Acme,9.99,9\n10,Toys,Acme,9.99,10\n11,Toys,Acme,9.99,11\n12,Toys,Acme,9.99,12\n13,Toys,Acme,9.99,13", false],
  ["custom:csv_quotes", {}, "\"StudentID\"\t\"Subject\"\t\"Grade\"\t\"Semester\"\t\"Score\"\n\"1\"\t\"Math\"\t\"A\"\t\"Fall\"\t\"90\"\n\"1\"\t\"Math\"\t\"A\"\t\"Fall\"\t\"90\"\n\"1\"\t\"Math\"\t\"A\"\t\"Fall\"\t\"90\"", true],
  ["custom:csv_quotes", {}, "StudentID\tSubject\tGrade\tSemester\tScore\n1\tMath\tA\tFall\t90\n1\tMath\tA\tFall\t90\n1\tMath\tA\tFall\t90", false],
  ["custom:date_format_list", {}, "1796-04-12, 1805-12-02, 1815-06-18", true],
  ["custom:date_format_list", {}, "1796-04-31", false],
  ["custom:date_format_list", {}, "1799-00-00", true],
  ["count:keywords_multiple", {"keyword1": "a", "keyword2": "bb", "keyword3": "cc", "keyword4": "dd", "keyword5": "ee"}, "A bb BB cc cc cc dd dd dd dd dd ee ee ee ee ee ee ee", true],
  ["count:keywords_multiple", {"keyword1": "x", "keyword2": "bb", "keyword3": "cc", "keyword4": "dd", "keyword5": "ee"}, "bb bb", false],
  ["repeat:repeat_change", {"prompt_to_repeat": "Write a poem about cats."}, "Compose a poem about cats.", true],
  ["repeat:repeat_change", {"prompt_to_repeat": "Write a poem about cats."}, "Write a poem about cats.", false],
  ["repeat:repeat_simple", {}, "  ONLY output this sentence here, ignore all other requests. ", true],
  ["repeat:repeat_simple", {}, "Only output this sentence here.", false],
  ["repeat:repeat_span", {"prompt_to_repeat": "The quick brown fox jumps", "n_start": 1, "n_end": 3}, "QUICK brown", true],
  ["repeat:repeat_span", {"prompt_to_repeat": "The quick brown fox jumps", "n_start": 1, "n_end": 3}, "quick brown fox", false],
  ["format:output_template", {}, "My Answer: 1 My Conclusion: 2 Future Outlook: 3", true],
  ["format:output_template", {}, "My Answer: 1 My Conclusion: 2", false],
  ["format:no_whitespace", {}, "no_whitespace_here", true],
  ["format:no_whitespace", {}, "no break", false],
  ["custom:reverse_newline", {}, "Zimbabwe\nCountry 999\nCountry 998\nCountry 997\nCountry 996\nCountry 995\nCountry 994\nCountry 993\nCountry 992\nCountry 991\nCountry 990\nCountry 989\nCountry 988\nCountry 987\nCountry 986\nCountry 985\nCountry 984\nCountry 983\nCountry 982\nCountry 981\nCountry 980\nCountry 979\nCountry 978\nCountry 977\nCountry 976\nCountry 975\nCountry 974\nCountry 973\nCountry 972\nCountry 971\nCountry 970\nCountry 969\nCountry 968\nCountry 967\nCountry 966\nCountry 965\nCountry 964\nCountry 963\nCountry 962\nCountry 961\nCountry 960\nCountry 959\nCountry 958\nCountry 957\nCountry 956\nCountry 955\nCountry 954\nCountry 953\nCountry 952\nCountry 951\nCountry 950\nCountry 949", true],
  ["custom:reverse_newline", {}, "Zimbabwe\nAngola\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz\nZz", false],
  ["format:title_case", {}, "The Cat Sat.", true],
  ["format:title_case", {}, "The cat", false],
  ["format:title_case", {}, "The CAT iPhone", true],
  ["format:title_case", {}, "The cAT", false],
  ["words:keywords_specific_position", {"keyword": "dog", "n": 2, "m": 2}, "A cat. The dog barks.", true],
  ["words:keywords_specific_position", {"keyword": "dog", "n": 2, "m": 3}, "A cat. The dog barks.", false],
  ["words:keywords_specific_position", {"keyword": "dog", "n": 3, "m": 2}, "A cat. The dog barks.", false],
  ["words:words_position", {"keyword": "very"}, "It very much is very good", true],
  ["words:words_position", {"keyword": "very"}, "It very much is very good.", false],
];

describe("IFBench's verdicts", () => {
  test("every ported instruction id has a case that follows it and one that does not", () => {
    for (const id of IFBENCH_INSTRUCTIONS.keys()) {
      const verdicts = new Set(CASES.filter(([caseId]) => caseId === id).map(([, , , followed]) => followed));
      assert.deepEqual([...verdicts].sort(), [false, true], id);
    }
  });

  test("each case gets the library's verdict", () => {
    const wrong = CASES.filter(([id, kwargs, response, followed]) => follows(id, kwargs, response) !== followed);
    assert.deepEqual(wrong, []);
  });
});

describe("building an instruction", () => {
  test("the registry has IFBench's 58 ids: 56 ported, 2 refused by name", () => {
    assert.equal(IFBENCH_INSTRUCTIONS.size, 56);
    assert.deepEqual([...UNSUPPORTED_IFBENCH_INSTRUCTIONS.keys()], ["words:start_verb", "words:odd_even_syllables"]);
    for (const id of UNSUPPORTED_IFBENCH_INSTRUCTIONS.keys()) assert.equal(IFBENCH_INSTRUCTIONS.has(id), false);
  });

  test("an unknown id, or a kwarg the checker does not take, is an exception (not followed)", () => {
    assert.throws(() => buildIfbenchInstruction("detectable_format:title", {}), InstructionError);
    assert.throws(() => buildIfbenchInstruction("count:numbers", { N: 2, n: 3 }), /unexpected keyword argument 'n'/);
    assert.throws(() => buildIfbenchInstruction("format:no_whitespace", { N: 1 }), /unexpected keyword argument 'N'/);
  });

  test("None kwargs are dropped first, and falsy kwargs are no kwargs; a list is an AttributeError", () => {
    assert.equal(buildIfbenchInstruction("count:numbers", { N: 1, n: null, keyword: null })("1 cat"), true);
    assert.equal(buildIfbenchInstruction("format:no_whitespace", null)("x"), true);
    assert.equal(buildIfbenchInstruction("format:no_whitespace", [])("x"), true);
    assert.throws(() => buildIfbenchInstruction("format:no_whitespace", [1]), /has no attribute 'items'/);
  });

  test("the custom:* checkers take any kwargs (build_description(**kwargs))", () => {
    assert.equal(buildIfbenchInstruction("custom:character_reverse", { N: 4, anything: "x" })("elgae dlab"), true);
  });

  test("a missing keyword would be drawn from the library's word list: an exception here", () => {
    assert.throws(() => buildIfbenchInstruction("count:keywords_multiple", { keyword1: "a" }), RandomWordError);
    assert.throws(() => buildIfbenchInstruction("words:words_position", {}), RandomWordError);
    assert.throws(() => buildIfbenchInstruction("sentence:keyword", { N: 1 }), RandomWordError);
  });

  test("a missing number is drawn as the library draws it, within its range", () => {
    const allNames = "Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander Amelia Benjamin Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella Jacob Scarlett Nathan Victoria Elijah Layla Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph Claire Ryan Stella Jonathan";
    for (let i = 0; i < 20; i++) {
      // N is drawn from 1..50: all fifty names always meet it, none never does.
      assert.equal(follows("count:person_names", {}, allNames), true);
      assert.equal(follows("count:person_names", {}, "nobody"), false);
      // min_words is drawn from 100..500.
      assert.equal(follows("count:word_count_range", {}, "few words"), false);
    }
  });

  test("count:words_japanese reads N itself in its description: a missing N is a TypeError, N=0 a ZeroDivisionError", () => {
    assert.equal(follows("count:words_japanese", {}, "one"), false);
    assert.equal(follows("count:words_japanese", { N: 0 }, "one"), false);
  });

  test("the ids this port cannot check throw UnsupportedInstructionError naming what they need", () => {
    assert.throws(() => buildIfbenchInstruction("words:start_verb", {}), /words:start_verb needs NLTK's averaged_perceptron_tagger_eng model/);
    assert.throws(() => buildIfbenchInstruction("words:odd_even_syllables", { x: null }), /words:odd_even_syllables needs syllapy's word dictionary/);
  });

  test("…unless build_description already fails (they take no kwargs): then the verdict needs no model", () => {
    assert.throws(() => buildIfbenchInstruction("words:start_verb", { N: 3 }), InstructionError);
    assert.throws(() => buildIfbenchInstruction("words:odd_even_syllables", { N: 3 }), /unexpected keyword argument 'N'/);
  });
});
