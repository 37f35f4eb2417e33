// A captured stream with a cap: keeps the first `limitBytes`, and calls `onOverflow` once when one more byte arrives
// (the provider then ends the run: a program past its output limit is not waited for).
import type { Readable } from "node:stream";

export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;
  truncated = false;

  constructor(
    stream: Readable,
    private readonly limitBytes: number,
    private readonly onOverflow: () => void,
  ) {
    stream.on("data", (chunk: Buffer) => this.add(chunk));
    // A read error after the sandbox is gone changes nothing about what was captured.
    stream.on("error", () => {});
  }

  private add(chunk: Buffer) {
    if (this.truncated) return;
    const room = this.limitBytes - this.keptBytes;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.keptBytes = this.limitBytes;
      this.truncated = true;
      this.onOverflow();
      return;
    }
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
