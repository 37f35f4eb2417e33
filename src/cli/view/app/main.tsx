// The `gym view` page: the runs with their plots, a run's rollouts as a filterable table (a page at a time, from the
// server), one rollout as a conversation, two runs compared, and the environment playground. The runs are polled:
// a collection still writing its files shows up as it goes, and what is on screen is refetched when its run changed.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, type RolloutLine, type RunOverview } from "./api.ts";
import { FailuresByClass, PassAtKCurve, RewardHistogram } from "./charts.tsx";
import { Conversation } from "./conversation.tsx";
import { RolloutsTab } from "./rollouts-tab.tsx";
import { CompareTab } from "./compare-tab.tsx";
import { PlaygroundTab } from "./playground-tab.tsx";
import "./style.css";

const TABS = ["runs", "rollouts", "compare", "playground"] as const;
type Tab = (typeof TABS)[number];

const POLL_MS = 1500;

const tabOfHash = (): Tab => (TABS as readonly string[]).includes(location.hash.slice(1)) ? (location.hash.slice(1) as Tab) : "runs";

export const fmt = (value: number | null | undefined, digits = 3) => (value === null || value === undefined ? "–" : Number.isInteger(value) ? String(value) : value.toFixed(digits));

function RunCard({ run }: { run: RunOverview }) {
  const { metrics } = run;
  const live = run.modifiedMs !== null && Date.now() - run.modifiedMs < 10_000;
  return (
    <article class="run-card" data-testid="run-card">
      <header>
        <h2>{run.name}</h2>
        {live && <span class="pill pill-live">live</span>}
        {!run.exists && <span class="pill">waiting for the file</span>}
        <code class="path">{run.path}</code>
      </header>
      <dl class="figures">
        <div><dt>rollouts</dt><dd data-testid="figure-rollouts">{metrics.rollouts}</dd></div>
        <div><dt>tasks</dt><dd>{metrics.tasks}</dd></div>
        <div><dt>mean reward</dt><dd data-testid="figure-mean-reward">{fmt(metrics.meanReward)}</dd></div>
        <div><dt>failed rollouts</dt><dd data-testid="figure-failed">{metrics.failedRollouts}</dd></div>
        <div><dt>mean tokens</dt><dd>{fmt(metrics.meanTokens, 0)}</dd></div>
        <div><dt>mean turns</dt><dd>{fmt(metrics.meanTurns, 1)}</dd></div>
        {run.unreadableLines > 0 && <div><dt>unreadable lines</dt><dd>{run.unreadableLines}</dd></div>}
      </dl>
      <div class="charts">
        <RewardHistogram metrics={metrics} />
        <PassAtKCurve metrics={metrics} />
        <FailuresByClass metrics={metrics} />
      </div>
      {run.keyMetrics?.map((entry) => (
        <div class="key-metrics">
          <strong>{entry.agent}</strong>{" "}
          {Object.entries(entry.metrics).map(([key, value]) => (
            <span class="pill">{key}: {typeof value === "number" ? fmt(value) : String(value)}</span>
          ))}
        </div>
      ))}
    </article>
  );
}

function App() {
  const [tab, setTab] = useState<Tab>(tabOfHash());
  const [runs, setRuns] = useState<RunOverview[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opened, setOpened] = useState<RolloutLine | null>(null);

  useEffect(() => {
    const onHash = () => setTab(tabOfHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    let stopped = false;
    const poll = async () => {
      try {
        const next = await api.runs();
        if (!stopped) (setRuns(next), setError(null));
      } catch (failure) {
        if (!stopped) setError((failure as Error).message);
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    let timer = setTimeout(poll, 0);
    return () => ((stopped = true), clearTimeout(timer));
  }, []);

  return (
    <div class="page">
      <nav class="tabs">
        <span class="brand">gym view</span>
        {TABS.map((name) => (
          <a href={`#${name}`} class={name === tab ? "tab tab-active" : "tab"} data-testid={`tab-${name}`}>
            {name}
          </a>
        ))}
        {error && <span class="error">{error}</span>}
      </nav>
      {runs === null ? (
        <p>loading…</p>
      ) : tab === "runs" ? (
        <main class="runs">{runs.length === 0 ? <p>No runs given: `gym view results/*.jsonl`.</p> : runs.map((run) => <RunCard run={run} />)}</main>
      ) : tab === "rollouts" ? (
        <RolloutsTab runs={runs} opened={opened} onOpen={setOpened} />
      ) : tab === "compare" ? (
        <CompareTab runs={runs} />
      ) : (
        <PlaygroundTab runs={runs} />
      )}
      {tab === "rollouts" && opened && (
        <aside class="drawer">
          <button class="close" onClick={() => setOpened(null)} data-testid="close-conversation">
            ×
          </button>
          <Conversation rollout={opened} />
        </aside>
      )}
    </div>
  );
}

render(<App />, document.getElementById("app")!);
