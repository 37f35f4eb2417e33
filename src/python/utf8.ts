// `text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")`: what NeMo Gym servers do to scrub lone
// surrogate halves (which survive json.loads but fail JSON serialization). Each lone half becomes its 3-byte
// encoding, which the decoder replaces byte by byte: three U+FFFD. Paired halves are one code point (JSON decoding
// joins them, in Python as in JS) and stay.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const replaceLoneSurrogates = (text: string): string => text.replace(LONE_SURROGATE, "\uFFFD\uFFFD\uFFFD");
