// `pickle.loads(data)` for the one thing NeMo Gym's benchmarks unpickle: a single str (LiveCodeBench keeps its
// private test cases as base64(zlib(pickle.dumps(json_text)))). Only the opcodes a pickled str is made of, in any
// protocol, are understood; anything else (an object, a global — code pickle would run) is refused, never run.
const decoder = new TextDecoder("utf-8", { fatal: true });

export function unpickleStr(data: Uint8Array): string {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  let value: string | undefined;
  const need = (n: number) => {
    if (at + n > data.length) throw new Error("pickle data was truncated");
  };
  const text = (length: number) => {
    need(length);
    const s = decoder.decode(data.subarray(at, at + length));
    at += length;
    return s;
  };
  const line = () => {
    const end = data.indexOf(0x0a, at);
    if (end < 0) throw new Error("pickle data was truncated");
    const s = Buffer.from(data.subarray(at, end)).toString("latin1");
    at = end + 1;
    return s;
  };
  for (;;) {
    need(1);
    const op = data[at++]!;
    switch (op) {
      case 0x80: // PROTO n
        need(1);
        at += 1;
        break;
      case 0x95: // FRAME <8-byte length>: framing only
        need(8);
        at += 8;
        break;
      case 0x8c: // SHORT_BINUNICODE <1-byte length>
        need(1);
        value = text(data[at++]!);
        break;
      case 0x58: // BINUNICODE <4-byte length>
        need(4);
        at += 4;
        value = text(view.getUint32(at - 4, true));
        break;
      case 0x8d: {
        // BINUNICODE8 <8-byte length>
        need(8);
        const length = view.getBigUint64(at, true);
        at += 8;
        value = text(Number(length));
        break;
      }
      case 0x56: // UNICODE (protocol 0): raw-unicode-escape text up to a newline
        value = line().replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_, u: string | undefined, U: string | undefined) => String.fromCodePoint(parseInt((u ?? U)!, 16)));
        break;
      case 0x94: // MEMOIZE
        break;
      case 0x71: // BINPUT <1-byte index>
        need(1);
        at += 1;
        break;
      case 0x72: // LONG_BINPUT <4-byte index>
        need(4);
        at += 4;
        break;
      case 0x70: // PUT <index>\n
        line();
        break;
      case 0x2e: // STOP
        if (value === undefined) throw new Error("pickle data holds no str");
        return value;
      default:
        throw new Error(`pickle data is not a pickled str (opcode 0x${op.toString(16).padStart(2, "0")}); only a str is unpickled here`);
    }
  }
}
