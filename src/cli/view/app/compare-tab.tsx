// Two runs of the same inputs side by side (a collection and its `gym eval reverify`): the rollouts whose reward
// changed, and a clicked one's two conversations next to each other.
import { useEffect, useState } from "preact/hooks";
import { api, type Comparison, type RolloutLine, type RunOverview } from "./api.ts";
import { Conversation } from "./conversation.tsx";

const PAGE_ROWS = 50;

export function CompareTab({ runs }: { runs: RunOverview[] }) {
  const [a, setA] = useState(0);
  const [b, setB] = useState(Math.min(1, runs.length - 1));
  const [offset, setOffset] = useState(0);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [pair, setPair] = useState<[RolloutLine | null, RolloutLine | null] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const versions = runs.map((run) => run.version).join(",");
  useEffect(() => {
    let current = true;
    api.compare(a, b, offset, PAGE_ROWS).then(
      (answer) => current && (setComparison(answer), setError(null)),
      (failure) => current && setError((failure as Error).message),
    );
    return () => void (current = false);
  }, [a, b, offset, versions]);

  const pick = (set: (id: number) => void) => (event: Event) => (set(Number((event.target as HTMLSelectElement).value)), setOffset(0), setPair(null));
  const open = async (row: Comparison["rows"][number]) => {
    try {
      setPair(await Promise.all([row.lineA === null ? null : api.line(a, "rollout", row.lineA), row.lineB === null ? null : api.line(b, "rollout", row.lineB)]));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const name = (id: number) => runs.find((run) => run.id === id)?.name ?? String(id);
  return (
    <main class="compare">
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        {([["A", a, setA, "compare-a"], ["B", b, setB, "compare-b"]] as const).map(([label, value, set, testId]) => (
          <label>
            run {label}
            <select value={String(value)} onChange={pick(set)} data-testid={testId}>
              {runs.map((run) => (
                <option value={String(run.id)}>{run.name}</option>
              ))}
            </select>
          </label>
        ))}
      </form>
      {error && <p class="error">{error}</p>}
      {comparison && (
        <>
          <p class="count" data-testid="compare-summary">
            {comparison.inBoth} rollouts in both · {comparison.rewardChanged} with a changed reward · {comparison.onlyInA} only in A · {comparison.onlyInB} only in B
            <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_ROWS))}>‹</button>
            <button disabled={offset + PAGE_ROWS >= comparison.total} onClick={() => setOffset(offset + PAGE_ROWS)}>›</button>
          </p>
          <table class="table" data-testid="compare-table">
            <thead>
              <tr><th>task</th><th>repeat</th><th>reward A</th><th>reward B</th><th>prompt</th></tr>
            </thead>
            <tbody>
              {comparison.rows.map((row) => (
                <tr class="row" onClick={() => open(row)} data-testid="compare-row">
                  <td>{row.task}</td>
                  <td>{row.repeat}</td>
                  <td>{row.rewardA ?? "–"}</td>
                  <td>{row.rewardB ?? "–"}</td>
                  <td class="prompt">{row.prompt}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {pair && (
        <div class="side-by-side" data-testid="side-by-side">
          {pair.map((rollout, i) => (rollout ? <Conversation rollout={rollout} title={`${i === 0 ? "A" : "B"}: ${name(i === 0 ? a : b)}`} /> : <p>not in run {i === 0 ? "A" : "B"}</p>))}
        </div>
      )}
    </main>
  );
}
