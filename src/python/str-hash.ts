// CPython's `hash(str)` with hash randomisation off (PYTHONHASHSEED=0): SipHash-1-3 under the all-zero key over the
// string's one-byte-per-character storage (CPython 3.11+; Py_HASH_CUTOFF 0, so no short-string variant). A process
// started without PYTHONHASHSEED draws a random key instead, so only the PYTHONHASHSEED=0 value is reproducible;
// callers that port a `hash(str(x))` say so.
const MASK = (1n << 64n) - 1n;

function rotl(x: bigint, b: bigint): bigint {
  return ((x << b) | (x >> (64n - b))) & MASK;
}

function sipRound(v: [bigint, bigint, bigint, bigint]): void {
  // HALF_ROUND(v0, v1, v2, v3, 13, 16) then HALF_ROUND(v2, v1, v0, v3, 17, 21), as pyhash.c writes it.
  v[0] = (v[0] + v[1]) & MASK;
  v[2] = (v[2] + v[3]) & MASK;
  v[1] = rotl(v[1], 13n) ^ v[0];
  v[3] = rotl(v[3], 16n) ^ v[2];
  v[0] = rotl(v[0], 32n);
  v[2] = (v[2] + v[1]) & MASK;
  v[0] = (v[0] + v[3]) & MASK;
  v[1] = rotl(v[1], 17n) ^ v[2];
  v[3] = rotl(v[3], 21n) ^ v[0];
  v[2] = rotl(v[2], 32n);
}

/** SipHash-1-3 of `bytes` under the key (k0, k1), as an unsigned 64-bit value. */
export function siphash13(bytes: Uint8Array, k0 = 0n, k1 = 0n): bigint {
  const v: [bigint, bigint, bigint, bigint] = [
    k0 ^ 0x736f6d6570736575n,
    k1 ^ 0x646f72616e646f6dn,
    k0 ^ 0x6c7967656e657261n,
    k1 ^ 0x7465646279746573n,
  ];
  const word = (at: number, length: number): bigint => {
    let m = 0n;
    for (let i = length - 1; i >= 0; i--) m = (m << 8n) | BigInt(bytes[at + i]!);
    return m;
  };
  let at = 0;
  for (; bytes.length - at >= 8; at += 8) {
    const m = word(at, 8);
    v[3] ^= m;
    sipRound(v);
    v[0] ^= m;
  }
  const b = ((BigInt(bytes.length) << 56n) | word(at, bytes.length - at)) & MASK;
  v[3] ^= b;
  sipRound(v);
  v[0] ^= b;
  v[2] ^= 0xffn;
  sipRound(v);
  sipRound(v);
  sipRound(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/**
 * `hash(s)` in a CPython 3.11+ process run with PYTHONHASHSEED=0, for strings whose characters are all below
 * U+0100 (CPython's one-byte storage; wider strings hash their UCS-2/UCS-4 storage, not implemented here).
 */
export function pythonStrHashUnrandomised(s: string): bigint {
  if (s.length === 0) return 0n;
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code > 0xff) throw new RangeError("pythonStrHashUnrandomised: only strings of characters below U+0100");
    bytes[i] = code;
  }
  const unsigned = siphash13(bytes);
  const signed = unsigned >= 1n << 63n ? unsigned - (1n << 64n) : unsigned;
  return signed === -1n ? -2n : signed;
}
