// A run's lines as a table, filtered and paged by the server; a click opens the line as a conversation.
import { useEffect, useState } from "preact/hooks";
import { api, type RolloutLine, type RunOverview, type TableQuery, type TableRow } from "./api.ts";

const PAGE_ROWS = 50;

const numberOrUndefined = (text: string) => (text.trim() === "" || !Number.isFinite(Number(text)) ? undefined : Number(text));

export function RolloutsTab({ runs, opened, onOpen }: { runs: RunOverview[]; opened: RolloutLine | null; onOpen: (line: RolloutLine) => void }) {
  const [runId, setRunId] = useState(0);
  const [status, setStatus] = useState<TableQuery["status"]>("all");
  const [failureClass, setFailureClass] = useState("");
  const [text, setText] = useState("");
  const [task, setTask] = useState("");
  const [minReward, setMinReward] = useState("");
  const [maxReward, setMaxReward] = useState("");
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ total: number; rows: TableRow[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = runs.find((candidate) => candidate.id === runId) ?? runs[0];
  const classes = run?.metrics.failuresByClass.map((entry) => entry.failureClass) ?? [];

  const query: TableQuery = {
    status,
    failureClass: failureClass || undefined,
    text: text || undefined,
    task: numberOrUndefined(task),
    minReward: numberOrUndefined(minReward),
    maxReward: numberOrUndefined(maxReward),
    offset,
    limit: PAGE_ROWS,
  };
  const key = JSON.stringify(query);
  useEffect(() => {
    if (!run) return;
    let current = true;
    api.table(run.id, query).then(
      (answer) => current && (setPage(answer), setError(null)),
      (failure) => current && setError((failure as Error).message),
    );
    return () => void (current = false);
    // The run's version: a live run's new lines show up on the page being looked at.
  }, [run?.id, run?.version, key]);

  if (!run) return <p>No runs.</p>;
  const filter = (set: (value: string) => void) => (event: Event) => (set((event.target as HTMLInputElement).value), setOffset(0));
  const open = (row: TableRow) => api.line(run.id, row.kind, row.index).then(onOpen, (failure) => setError((failure as Error).message));
  return (
    <main class="rollouts">
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          run
          <select value={String(run.id)} onChange={(event) => (setRunId(Number((event.target as HTMLSelectElement).value)), setOffset(0))} data-testid="filter-run">
            {runs.map((candidate) => (
              <option value={String(candidate.id)}>{candidate.name}</option>
            ))}
          </select>
        </label>
        <label>
          lines
          <select value={status} onChange={filter((value) => setStatus(value as TableQuery["status"]))} data-testid="filter-status">
            <option value="all">all</option>
            <option value="rollout">scored</option>
            <option value="failure">failed attempts</option>
          </select>
        </label>
        <label>
          failure class
          <select value={failureClass} onChange={filter(setFailureClass)} data-testid="filter-failure-class">
            <option value="">any</option>
            {classes.map((name) => (
              <option value={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          text <input value={text} onInput={filter(setText)} placeholder="in the prompt" data-testid="filter-text" />
        </label>
        <label>
          task <input value={task} onInput={filter(setTask)} size={4} data-testid="filter-task" />
        </label>
        <label>
          reward ≥ <input value={minReward} onInput={filter(setMinReward)} size={4} data-testid="filter-min-reward" />
        </label>
        <label>
          ≤ <input value={maxReward} onInput={filter(setMaxReward)} size={4} data-testid="filter-max-reward" />
        </label>
      </form>
      {error && <p class="error">{error}</p>}
      {page && (
        <>
          <p class="count" data-testid="table-count">
            {page.total} lines{page.total > 0 && ` · ${offset + 1}–${Math.min(page.total, offset + page.rows.length)}`}
            <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_ROWS))} data-testid="page-previous">
              ‹
            </button>
            <button disabled={offset + PAGE_ROWS >= page.total} onClick={() => setOffset(offset + PAGE_ROWS)} data-testid="page-next">
              ›
            </button>
          </p>
          <table class="table" data-testid="rollout-table">
            <thead>
              <tr>
                <th>task</th><th>repeat</th><th>reward</th><th>failure class</th><th>tokens</th><th>turns</th><th>prompt</th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((row) => (
                <tr
                  class={opened && opened.summary.kind === row.kind && opened.summary.index === row.index ? "row row-open" : "row"}
                  onClick={() => open(row)}
                  data-testid="rollout-row"
                >
                  <td>{row.task}</td>
                  <td>{row.repeat}</td>
                  <td class={row.reward === null ? "" : row.reward > 0 ? "good" : "bad"}>{row.reward ?? "–"}</td>
                  <td>{row.failureClass ? `${row.failureClass}${row.willRetry ? " (retried)" : ""}` : ""}</td>
                  <td>{row.tokens ?? "–"}</td>
                  <td>{row.turns}</td>
                  <td class="prompt">{row.prompt}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
