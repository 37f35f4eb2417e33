// The malformed-arguments message NeMo Gym feeds back to the model embeds Python's repr of the
// JSONDecodeError; reproducing its wording keeps tool outputs comparable across the two implementations.

function lineAndColumn(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  const column = index - before.lastIndexOf("\n");
  return { line, column };
}

/** `JSONDecodeError('Expecting value: line 1 column 1 (char 0)')` for the common cases, else the JS message. */
export function pythonJsonDecodeErrorRepr(text: unknown, error: unknown): string {
  if (typeof text !== "string") return `TypeError('the JSON object must be str, bytes or bytearray, not ${text === null ? "NoneType" : typeof text}')`;
  const jsMessage = (error as Error)?.message ?? String(error);
  const position = /position (\d+)/.exec(jsMessage);
  let index = position ? Number(position[1]) : text.length;
  let reason = "Expecting value";
  if (text.trim() === "") index = text.length;
  else if (/Unexpected non-whitespace character after JSON/.test(jsMessage)) reason = "Extra data";
  else if (/Unterminated string/.test(jsMessage)) reason = "Unterminated string starting at";
  else if (/Expected property name|Expected double-quoted property name/.test(jsMessage)) reason = "Expecting property name enclosed in double quotes";
  else if (/Expected ',' or '}'/.test(jsMessage)) reason = "Expecting ',' delimiter";
  else if (/Expected ':'/.test(jsMessage)) reason = "Expecting ':' delimiter";
  const { line, column } = lineAndColumn(text, index);
  const message = `${reason}: line ${line} column ${column} (char ${index})`;
  return `JSONDecodeError('${message}')`;
}
