// How downloads show on stderr: a cli-progress bar per file on a terminal; otherwise (CI, tests, a pipe) one
// plain line per file when it is done, so logs stay readable.
import cliProgress from "cli-progress";

export interface FileProgress {
  update(bytesOnDisk: number, totalBytes: number | undefined): void;
  /** The file is on disk: `fetched` false when nothing had to be downloaded. */
  done(summary: { bytes: number; fetched: boolean; resumedFromBytes: number }): void;
  fail(): void;
}

export interface ProgressReporter {
  file(label: string): FileProgress;
}

export function progressReporter(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  return stream.isTTY ? barReporter(stream) : lineReporter((line) => void stream.write(`${line}\n`));
}

/** One plain line per finished file. */
export function lineReporter(write: (line: string) => void): ProgressReporter {
  return {
    file: (label) => ({
      update: () => undefined,
      done: ({ bytes, fetched, resumedFromBytes }) =>
        write(fetched ? `downloaded ${label} (${formatBytes(bytes)}${resumedFromBytes > 0 ? `, resumed after ${formatBytes(resumedFromBytes)}` : ""})` : `cached ${label} (${formatBytes(bytes)})`),
      fail: () => undefined,
    }),
  };
}

function barReporter(stream: NodeJS.WriteStream): ProgressReporter {
  return {
    file(label) {
      const name = label.length > 60 ? `…${label.slice(-59)}` : label;
      const bar = new cliProgress.SingleBar(
        { stream, format: `${name} [{bar}] {percentage}% {done}/{size}`, hideCursor: true, clearOnComplete: false, barsize: 30 },
        cliProgress.Presets.shades_classic,
      );
      let started = false;
      const start = (total: number) => {
        if (!started) bar.start(total, 0, { done: "0 B", size: formatBytes(total) });
        started = true;
      };
      return {
        update(bytes, total) {
          start(total ?? 0);
          if (total !== undefined) bar.setTotal(total);
          bar.update(bytes, { done: formatBytes(bytes), size: total === undefined ? "?" : formatBytes(total) });
        },
        done({ bytes, fetched }) {
          if (!fetched) return void stream.write(`cached ${label} (${formatBytes(bytes)})\n`);
          start(bytes);
          bar.setTotal(bytes);
          bar.update(bytes, { done: formatBytes(bytes), size: formatBytes(bytes) });
          bar.stop();
        },
        fail: () => started && bar.stop(),
      };
    },
  };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) (value /= 1024), unit++;
  return `${value.toFixed(1)} ${units[unit]}`;
}
