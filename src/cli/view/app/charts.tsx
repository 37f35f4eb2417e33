// The run plots, drawn as SVG by hand: three small charts (bars and one line) need no chart library, render the
// same in every browser and in the screenshots the tests check, and their colours are fixed (the tests look for them).
import type { RunOverview } from "./api.ts";
import { CHART_COLOURS } from "./chart-colours.ts";

type Metrics = RunOverview["metrics"];


const WIDTH = 260;
const HEIGHT = 120;
const PAD = { left: 30, right: 8, top: 8, bottom: 22 };
const innerWidth = WIDTH - PAD.left - PAD.right;
const innerHeight = HEIGHT - PAD.top - PAD.bottom;

function Frame(props: { title: string; testId: string; children: preact.ComponentChildren; empty?: string }) {
  return (
    <figure class="chart" data-testid={props.testId}>
      <figcaption>{props.title}</figcaption>
      {props.empty ? (
        <div class="chart-empty">{props.empty}</div>
      ) : (
        <svg width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={props.title}>
          <line x1={PAD.left} y1={PAD.top + innerHeight} x2={WIDTH - PAD.right} y2={PAD.top + innerHeight} stroke="#9ca3af" />
          <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={PAD.top + innerHeight} stroke="#9ca3af" />
          {props.children}
        </svg>
      )}
    </figure>
  );
}

const label = (x: number, y: number, text: string, anchor: "start" | "middle" | "end" = "middle") => (
  <text x={x} y={y} font-size="9" fill="#4b5563" text-anchor={anchor}>
    {text}
  </text>
);

export function RewardHistogram({ metrics }: { metrics: Metrics }) {
  const bins = metrics.rewardHistogram;
  const most = Math.max(1, ...bins.map((bin) => bin.count));
  const barWidth = innerWidth / Math.max(1, bins.length);
  return (
    <Frame title="Reward distribution" testId="chart-reward" empty={bins.length === 0 ? "no rollouts yet" : undefined}>
      {bins.map((bin, i) => {
        const height = (bin.count / most) * innerHeight;
        return (
          <rect class="bar" x={PAD.left + i * barWidth + 1} y={PAD.top + innerHeight - height} width={Math.max(1, barWidth - 2)} height={height} fill={CHART_COLOURS.reward}>
            <title>{`${bin.from.toFixed(2)}–${bin.to.toFixed(2)}: ${bin.count}`}</title>
          </rect>
        );
      })}
      {label(PAD.left - 4, PAD.top + 6, String(most), "end")}
      {bins.length > 0 && label(PAD.left, HEIGHT - 8, bins[0]!.from.toFixed(1), "start")}
      {bins.length > 0 && label(WIDTH - PAD.right, HEIGHT - 8, bins[bins.length - 1]!.to.toFixed(1), "end")}
    </Frame>
  );
}

export function PassAtKCurve({ metrics }: { metrics: Metrics }) {
  const points = metrics.passAtK;
  const x = (k: number) => PAD.left + (points.length <= 1 ? innerWidth / 2 : ((k - 1) / (points.length - 1)) * innerWidth);
  const y = (value: number) => PAD.top + innerHeight - (value / 100) * innerHeight;
  return (
    <Frame title="pass@k (%)" testId="chart-pass-at-k" empty={points.length === 0 ? "no rollouts yet" : undefined}>
      <polyline fill="none" stroke={CHART_COLOURS.passAtK} stroke-width="2.5" points={points.map((point) => `${x(point.k)},${y(point.value)}`).join(" ")} />
      {points.map((point) => (
        <circle cx={x(point.k)} cy={y(point.value)} r="3.5" fill={CHART_COLOURS.passAtK}>
          <title>{`pass@${point.k}: ${point.value.toFixed(1)}%`}</title>
        </circle>
      ))}
      {label(PAD.left - 4, PAD.top + 6, "100", "end")}
      {label(PAD.left - 4, PAD.top + innerHeight, "0", "end")}
      {points.map((point) => label(x(point.k), HEIGHT - 8, `k=${point.k}`))}
    </Frame>
  );
}

export function FailuresByClass({ metrics }: { metrics: Metrics }) {
  const classes = metrics.failuresByClass;
  const most = Math.max(1, ...classes.map((entry) => entry.attempts));
  const rowHeight = Math.min(22, innerHeight / Math.max(1, classes.length));
  // The rest of the width is for the class's name and count after its bar.
  const barRoom = innerWidth * 0.45;
  return (
    <Frame title="Failures by class (attempts)" testId="chart-failures" empty={classes.length === 0 ? "no failures" : undefined}>
      {classes.map((entry, i) => (
        <g>
          <rect class="bar" x={PAD.left + 1} y={PAD.top + i * rowHeight + 2} width={Math.max(2, (barRoom * entry.attempts) / most)} height={rowHeight - 4} fill={CHART_COLOURS.failure}>
            <title>{`${entry.failureClass}: ${entry.attempts} attempts, ${entry.rollouts} rollouts failed for good`}</title>
          </rect>
          {label(PAD.left + 6 + (barRoom * entry.attempts) / most, PAD.top + i * rowHeight + rowHeight / 2 + 3, `${entry.failureClass} ${entry.attempts}`, "start")}
        </g>
      ))}
    </Frame>
  );
}
