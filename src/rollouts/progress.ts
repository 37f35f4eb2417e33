// Collection progress: a redrawn bar on a terminal, periodic plain lines in logs and CI.

export interface Progress {
  tick(outcome: "ok" | "failed"): void;
  done(): void;
}

export function createProgress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  const startedAt = Date.now();
  let completed = 0;
  let failed = 0;
  let lastLineAt = 0;
  let lastPct = -1;
  const rate = () => completed / Math.max((Date.now() - startedAt) / 1000, 1e-3);
  const summary = () => `${completed}/${total} (${failed} failed) ${rate().toFixed(1)} rollouts/s`;

  if (stream.isTTY) {
    const width = 30;
    const draw = () => {
      const filled = total === 0 ? width : Math.round((completed / total) * width);
      stream.write(`\r${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${summary()}   `);
    };
    let timer: NodeJS.Timeout | undefined;
    return {
      tick(outcome) {
        completed++;
        if (outcome === "failed") failed++;
        timer ??= setTimeout(() => {
          timer = undefined;
          draw();
        }, 100);
      },
      done() {
        if (timer) clearTimeout(timer);
        draw();
        stream.write("\n");
      },
    };
  }

  return {
    tick(outcome) {
      completed++;
      if (outcome === "failed") failed++;
      const pct = total === 0 ? 100 : Math.floor((completed / total) * 10) * 10;
      if (pct > lastPct || Date.now() - lastLineAt > 10_000) {
        lastPct = pct;
        lastLineAt = Date.now();
        stream.write(`${label}: ${summary()}\n`);
      }
    },
    done() {
      if (completed === 0 || lastPct < 100) stream.write(`${label}: ${summary()}\n`);
    },
  };
}
