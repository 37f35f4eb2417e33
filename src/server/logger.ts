// Human-readable one-line logs on stderr (the launcher prefixes each line with the instance name).
import pino, { type Logger } from "pino";

export type { Logger };

export function createLogger(name: string, level: string = process.env.GYM_LOG_LEVEL ?? "info"): Logger {
  return pino(
    { name, level, base: undefined, timestamp: false },
    {
      write(line: string) {
        const record = JSON.parse(line) as { level: number; msg?: string; err?: { stack?: string } };
        const label = pino.levels.labels[record.level] ?? String(record.level);
        process.stderr.write(`${label.toUpperCase()} ${record.msg ?? ""}${record.err?.stack ? `\n${record.err.stack}` : ""}\n`);
      },
    },
  );
}
