// Python's character classes on `str`, as JS regex class contents (for the `u` and `v` flags): what
// `str.isspace()` and `re`'s `\s` accept (\x1c–\x1f and \x85 too, \ufeff not), `re`'s Unicode `\w` and `\d`,
// and the `\b` built on that `\w`. One definition, shared by the regex translation and every str helper.

/** `str.isspace()` characters: `\s`, `str.split()` and `str.strip()`. */
export const PYTHON_SPACE_CHARS = String.raw`\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;
/** `re`'s `\w` on a str pattern: letters, numbers and `_`. */
export const PYTHON_WORD_CHARS = String.raw`\p{L}\p{N}_`;
/** `re`'s `\d` on a str pattern: any Unicode decimal digit. */
export const PYTHON_DIGIT_CHARS = String.raw`\p{Nd}`;
/** `re`'s `\b`: between a `\w` and a non-`\w` (or an end). */
export const PYTHON_WORD_BOUNDARY = `(?:(?<=[${PYTHON_WORD_CHARS}])(?![${PYTHON_WORD_CHARS}])|(?<![${PYTHON_WORD_CHARS}])(?=[${PYTHON_WORD_CHARS}]))`;
/** What `int()` and `float()` strip around a number: `str.isspace()` less the separators \x1c–\x1f. */
export const PYTHON_NUMBER_SPACE_CHARS = PYTHON_SPACE_CHARS.replace(String.raw`\x1c-\x20`, String.raw`\x20`);
