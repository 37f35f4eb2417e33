// The regular files of a tar archive, in archive order (what Python's tarfile.getmembers() walks): ustar and
// GNU headers, long names from GNU 'L' records and pax 'path' records. Enough for the public archives NeMo Gym's
// prepare scripts read (MMLU's data.tar); no compression.
import { readFileSync } from "node:fs";

export interface TarMember {
  name: string;
  data: Buffer;
}

export function readTarMembers(path: string): TarMember[] {
  const archive = readFileSync(path);
  const members: TarMember[] = [];
  let longName: string | undefined;
  for (let offset = 0; offset + 512 <= archive.length; ) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const text = (start: number, length: number) => header.subarray(start, start + length).toString("utf8").replace(/\0.*$/s, "");
    const size = parseInt(text(124, 12).trim() || "0", 8);
    const type = text(156, 1) || "0";
    const prefix = text(257, 6).startsWith("ustar") ? text(345, 155) : "";
    const data = archive.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = data.toString("utf8").replace(/\0.*$/s, "");
      continue;
    }
    if (type === "x") {
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString("utf8"))?.[1];
      if (path !== undefined) longName = path;
      continue;
    }
    const name = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100));
    longName = undefined;
    if (type === "0" || type === "\0") members.push({ name, data });
  }
  return members;
}
