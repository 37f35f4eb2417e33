// How a session's state crosses a process boundary (a shared store such as Redis): as JSON text. An environment
// whose state is plain data says `stateCodec: "json"`; one whose state is a class instance writes its own encode and
// decode; one that says nothing cannot be served from a shared store, and asking for one fails at start.

/** Custom encoding: `encode` returns a JSON-serialisable value, `decode` rebuilds the state from it. */
export interface CustomStateCodec<State, Config> {
  encode(state: State, config: Config): unknown;
  decode(value: unknown, config: Config): State;
}

export type StateCodecSpec<State, Config> = "json" | CustomStateCodec<State, Config>;

/** What a shared store uses: state to text and back. */
export interface StateTextCodec<State> {
  encode(state: State): string;
  decode(text: string): State;
}

export class StateNotSerializableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateNotSerializableError";
  }
}

/**
 * JSON.stringify that refuses what JSON would silently change: class instances (a Date, a Map, a Set, anything with
 * its own prototype), functions, symbols, bigints, non-finite numbers and `undefined` inside arrays.
 */
export function plainJsonText(value: unknown, what: string): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, encoded) {
    // `this[key]` is the value before toJSON (a Date is already a string in `encoded`).
    const original = key === "" ? value : this[key];
    const problem = notPlain(original, Array.isArray(this));
    if (problem !== undefined) throw new StateNotSerializableError(`${what}: ${problem} at ${key === "" ? "the top level" : JSON.stringify(key)} does not survive JSON`);
    return encoded;
  });
}

function notPlain(value: unknown, inArray: boolean): string | undefined {
  switch (typeof value) {
    case "function":
    case "symbol":
    case "bigint":
      return `a ${typeof value}`;
    case "number":
      return Number.isFinite(value) ? undefined : `the number ${value}`;
    case "undefined":
      return inArray ? "undefined" : undefined;
    case "object": {
      if (value === null || Array.isArray(value)) return undefined;
      const prototype = Object.getPrototypeOf(value);
      return prototype === Object.prototype || prototype === null ? undefined : `a ${prototype?.constructor?.name ?? "class"} instance`;
    }
    default:
      return undefined;
  }
}

export function stateTextCodec<State, Config>(spec: StateCodecSpec<State, Config>, config: Config, serverName: string): StateTextCodec<State> {
  const what = `${serverName} session state`;
  if (spec === "json") return { encode: (state) => plainJsonText(state, what), decode: (text) => JSON.parse(text) as State };
  return { encode: (state) => plainJsonText(spec.encode(state, config), what), decode: (text) => spec.decode(JSON.parse(text), config) };
}
