// The environment playground: pick a running resources server (the head server lists them), seed a session from a
// row of a run, call its tools from forms made from GET /tools, and verify what the calls did — each call sent by
// the view server, which keeps the session's cookie as an agent would.
import { useEffect, useState } from "preact/hooks";
import { api, type PlaygroundCall, type PlaygroundServer, type RunOverview, type ToolDefinition } from "./api.ts";
import { ToolForm } from "./tool-form.tsx";

interface LoggedCall {
  path: string;
  args: unknown;
  answer: PlaygroundCall;
}

let callCounter = 0;

/** A Responses object holding the session's tool calls and their outputs: what /verify is asked to score. */
function responseOf(calls: readonly LoggedCall[]) {
  const output = calls
    .filter((call) => call.path !== "seed_session" && call.path !== "verify")
    .flatMap((call) => {
      const id = `call_playground_${++callCounter}`;
      return [
        { type: "function_call", call_id: id, name: call.path, arguments: JSON.stringify(call.args), id, status: "completed" },
        { type: "function_call_output", call_id: id, output: typeof call.answer.body === "string" ? call.answer.body : JSON.stringify(call.answer.body) },
      ];
    });
  return { id: "resp_playground", created_at: Math.floor(Date.now() / 1000), model: "playground", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] };
}

export function PlaygroundTab({ runs }: { runs: RunOverview[] }) {
  const [servers, setServers] = useState<PlaygroundServer[] | null>(null);
  const [headServer, setHeadServer] = useState("");
  const [chosen, setChosen] = useState("");
  const [session, setSession] = useState<{ id: string; server: PlaygroundServer; tools: ToolDefinition[] } | null>(null);
  const [runId, setRunId] = useState(0);
  const [task, setTask] = useState("0");
  const [repeat, setRepeat] = useState("0");
  const [seedText, setSeedText] = useState("{}");
  const [calls, setCalls] = useState<LoggedCall[]>([]);
  const [reward, setReward] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const listServers = () =>
    api.servers().then(
      (answer) => (setServers(answer.servers), setHeadServer(answer.headServer), setChosen((name) => name || answer.servers[0]?.name || ""), setError(null)),
      (failure) => (setServers([]), setError((failure as Error).message)),
    );
  useEffect(() => void listServers(), []);

  const guarded = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
      setError(null);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const open = () =>
    guarded(async () => {
      const opened = await api.openSession(chosen);
      setSession({ id: opened.session, server: opened.server, tools: opened.tools });
      setCalls([]);
      setReward(undefined);
    });
  const loadRow = () =>
    guarded(async () => {
      const { row } = await api.seedRow(runId, Number(task), Number(repeat));
      setSeedText(JSON.stringify(row, null, 2));
    });
  const send = (path: string, args: unknown) =>
    guarded(async () => {
      const answer = await api.callTool(session!.id, path, args);
      setCalls((before) => [...before, { path, args, answer }]);
      if (path === "verify") setReward(answer.status === 200 ? (answer.body as { reward?: unknown }).reward : undefined);
    });
  const seedRow = (): Record<string, unknown> => {
    try {
      return JSON.parse(seedText) as Record<string, unknown>;
    } catch {
      throw new Error("seed row: not valid JSON");
    }
  };

  return (
    <main class="playground">
      <section class="panel">
        <h3>Resources server</h3>
        <p class="muted">listed by the head server at {headServer || "…"}</p>
        <select value={chosen} onChange={(event) => setChosen((event.target as HTMLSelectElement).value)} data-testid="playground-server">
          {(servers ?? []).map((server) => (
            <option value={server.name}>
              {server.name} ({server.implementation}, {server.status})
            </option>
          ))}
        </select>{" "}
        <button onClick={open} disabled={busy || !chosen} data-testid="playground-open">
          open session
        </button>{" "}
        <button onClick={listServers} disabled={busy}>
          refresh
        </button>
        {session && (
          <p data-testid="playground-session">
            session on <strong>{session.server.name}</strong> <code>{session.server.url}</code>
          </p>
        )}
      </section>
      {error && (
        <p class="error" data-testid="playground-error">
          {error}
        </p>
      )}
      {session && (
        <div class="playground-grid">
          <section class="panel">
            <h3>1. Seed the session from a row</h3>
            <div class="filters">
              <label>
                run
                <select value={String(runId)} onChange={(event) => setRunId(Number((event.target as HTMLSelectElement).value))}>
                  {runs.map((run) => (
                    <option value={String(run.id)}>{run.name}</option>
                  ))}
                </select>
              </label>
              <label>
                task <input value={task} onInput={(event) => setTask((event.target as HTMLInputElement).value)} size={4} data-testid="seed-task" />
              </label>
              <label>
                repeat <input value={repeat} onInput={(event) => setRepeat((event.target as HTMLInputElement).value)} size={3} />
              </label>
              <button onClick={loadRow} disabled={busy} data-testid="seed-load">
                load row
              </button>
            </div>
            <textarea class="json" rows={8} value={seedText} onInput={(event) => setSeedText((event.target as HTMLTextAreaElement).value)} data-testid="seed-json" />
            <button onClick={() => guarded(async () => send("seed_session", seedRow()))} disabled={busy} data-testid="seed-send">
              seed_session
            </button>
            <h3>2. Call its tools</h3>
            {session.tools.map((tool) => (
              <ToolForm tool={tool} disabled={busy} onCall={(args) => send(tool.name, args)} />
            ))}
            <h3>3. Verify</h3>
            <p class="muted">POST /verify with the row and a response holding the calls above.</p>
            <button onClick={() => guarded(async () => send("verify", { ...seedRow(), response: responseOf(calls) }))} disabled={busy} data-testid="verify-send">
              verify
            </button>
            {reward !== undefined && (
              <p class="pill" data-testid="verify-reward">
                reward {String(reward)}
              </p>
            )}
          </section>
          <section class="panel">
            <h3>Calls</h3>
            <ol class="call-log" data-testid="call-log">
              {calls.map((call) => (
                <li data-testid="call-entry">
                  <div>
                    <code>POST /{call.path}</code> <span class={call.answer.status < 300 ? "good" : "bad"}>{call.answer.status}</span>
                  </div>
                  {call.path !== "seed_session" && call.path !== "verify" && <pre>{JSON.stringify(call.args)}</pre>}
                  <pre data-testid="call-answer">{typeof call.answer.body === "string" ? call.answer.body : JSON.stringify(call.answer.body, null, 2).slice(0, 4000)}</pre>
                </li>
              ))}
            </ol>
          </section>
        </div>
      )}
    </main>
  );
}
