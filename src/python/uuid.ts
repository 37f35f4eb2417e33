// Python's `uuid.uuid5(namespace, name)`: NeMo Gym's prepare scripts give every benchmark row a stable uuid this
// way (usually under NAMESPACE_URL), so ours must be the same bytes.
import { createHash } from "node:crypto";

export const NAMESPACE_URL = "6ba7b811-9dad-11d1-80b4-00c04fd430c8";

/** `str(uuid.uuid5(uuid.UUID(namespace), name))`: SHA-1 of the namespace's bytes and the name's UTF-8. */
export function uuid5(namespace: string, name: string): string {
  const digest = createHash("sha1").update(Buffer.from(namespace.replace(/-/g, ""), "hex")).update(name, "utf8").digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
