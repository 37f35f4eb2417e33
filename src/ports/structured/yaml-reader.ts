// PyYAML's Reader checks a str stream before anything is scanned (yaml/reader.py, check_printable): the first
// code point outside the printable set fails the whole load with a ReaderError, whatever the syntax around it
// (inside quotes or a comment too). The set is YAML 1.1's: tab, LF, CR, printable ASCII, NEL, and everything
// from U+00A0 up except surrogates and U+FFFE/U+FFFF.

export interface PyYamlReaderError {
  name: "ReaderError";
  message: string;
}

function printable(codePoint: number): boolean {
  return (
    codePoint === 0x09 ||
    codePoint === 0x0a ||
    codePoint === 0x0d ||
    (codePoint >= 0x20 && codePoint <= 0x7e) ||
    codePoint === 0x85 ||
    (codePoint >= 0xa0 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

/** The ReaderError `yaml.safe_load(text)` raises for the first non-printable character, or undefined when none. */
export function pyYamlReaderError(text: string): PyYamlReaderError | undefined {
  // Python counts the position in code points; a lone surrogate is one code point there as here.
  let position = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (!printable(codePoint)) {
      const hex = codePoint.toString(16).padStart(4, "0");
      return {
        name: "ReaderError",
        message: `unacceptable character #x${hex}: special characters are not allowed\n  in "<unicode string>", position ${position}`,
      };
    }
    position++;
  }
  return undefined;
}
