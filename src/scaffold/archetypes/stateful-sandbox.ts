// `stateful-sandbox`: a scratch workspace of text files per rollout, created on the first tool call from the
// row's `initial_files` and disposed with the session; verify compares the files left with `expected_files`.
import type { FunctionToolDefinition } from "../../server/index.ts";
import { classTitle } from "../common.ts";
import { importLines, row, type Archetype, type Row, type SourceContext, type VerifierCase } from "./shared.ts";

const app = (context: SourceContext) => `// ${context.name}: a scratch workspace of text files per rollout. The sandbox is created on the first tool call
// from the row's \`initial_files\` and disposed with the session; verify compares what is left with \`expected_files\`.
${importLines(context, [["{ resourcesServer, tool }", "src/server/index.ts"]])}

const Files = z.record(z.string(), z.string());
const Path = z.string().describe("A file path relative to the workspace, e.g. notes.txt or src/main.py.");

const normalizePath = (path: string) => path.trim().replace(/^(\\.\\/|\\/)+/, "");

/** Stands in for a real sandbox (a container, a VM): made on first use, disposed with the session. */
class Sandbox {
  readonly files: Map<string, string>;
  constructor(initialFiles: Record<string, string>) {
    this.files = new Map(Object.entries(initialFiles).map(([path, content]) => [normalizePath(path), content]));
  }
  dispose(): void {
    this.files.clear();
  }
}

interface Session {
  initialFiles: Record<string, string>;
  sandbox?: Sandbox;
}

const sandboxOf = (session: Session) => (session.sandbox ??= new Sandbox(session.initialFiles));

export default resourcesServer({
  name: "${classTitle(context.name)}ResourcesServer",
  seed: z.object({ initial_files: Files.default({}) }),
  // Seeding only remembers the task; the sandbox itself is made by the first tool call.
  state: (seed): Session => ({ initialFiles: seed?.initial_files ?? {} }),
  disposeState: (session) => session.sandbox?.dispose(),
  tools: {
    list_files: tool({
      description: "List every file in the workspace.",
      input: z.object({}),
      run: (session: Session) => ({ files: [...sandboxOf(session).files.keys()].sort() }),
    }),
    read_file: tool({
      description: "Read a file of the workspace.",
      input: z.object({ path: Path }),
      run: (session: Session, { path }) => {
        const content = sandboxOf(session).files.get(normalizePath(path));
        return content === undefined ? { error: \`No such file: \${path}\` } : { path: normalizePath(path), content };
      },
    }),
    write_file: tool({
      description: "Create a file, or replace its whole content.",
      input: z.object({ path: Path, content: z.string().describe("The file's complete new content.") }),
      run: (session: Session, { path, content }) => {
        sandboxOf(session).files.set(normalizePath(path), content);
        return { success: true, path: normalizePath(path), characters: content.length };
      },
    }),
    search_files: tool({
      description: "Find the lines of every file that contain a text.",
      input: z.object({ text: z.string().describe("The text to look for (case-sensitive).") }),
      run: (session: Session, { text }) => ({
        matches: [...sandboxOf(session).files].flatMap(([path, content]) =>
          content.split("\\n").flatMap((line, i) => (line.includes(text) ? [{ path, line: i + 1, text: line }] : [])),
        ),
      }),
    }),
  },
  verify: {
    input: z.object({ expected_files: Files }),
    run: (session, { expected_files }) => {
      // A workspace never touched still holds the row's initial files.
      const files = session?.sandbox?.files ?? new Map(Object.entries(session?.initialFiles ?? {}));
      const expected = Object.entries(expected_files);
      const matched = expected.filter(([path, content]) => files.get(normalizePath(path)) === content).length;
      return { reward: session !== undefined && matched === expected.length ? 1 : 0, files_matched: matched, files_expected: expected.length };
    },
  },
});
`;

const DEVELOPER = "You work in a workspace of text files. Use the tools to inspect and change files (paths are relative, like notes.txt); say when you are done.";

function exampleRows(tools: FunctionToolDefinition[]): Row[] {
  return [
    row(DEVELOPER, 'Create a file "notes.txt" that contains exactly "buy milk".', tools, { initial_files: {}, expected_files: { "notes.txt": "buy milk" } }),
    row(DEVELOPER, 'Change "config.ini" so that it reads "debug=false".', tools, {
      initial_files: { "config.ini": "debug=true" },
      expected_files: { "config.ini": "debug=false" },
    }),
    row(DEVELOPER, "Copy the contents of draft.md into a new file called final.md, leaving draft.md as it is.", tools, {
      initial_files: { "draft.md": "# Plan\nship on friday" },
      expected_files: { "draft.md": "# Plan\nship on friday", "final.md": "# Plan\nship on friday" },
    }),
    row(DEVELOPER, 'Append the line "c" to "todo.txt".', tools, { initial_files: { "todo.txt": "a\nb" }, expected_files: { "todo.txt": "a\nb\nc" } }),
    row(DEVELOPER, 'Write "hello, world" into a file named "greeting.txt".', tools, { initial_files: {}, expected_files: { "greeting.txt": "hello, world" } }),
  ];
}

function verifierCases(rows: Row[]): VerifierCase[] {
  const notes = rows[0]!;
  const copy = rows[2]!;
  return [
    { case: "full_reward", row: notes, tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "buy milk" } }], output_text: "Created notes.txt.", expected_reward: 1 },
    {
      case: "full_reward",
      row: copy,
      tool_calls: [
        { name: "read_file", arguments: { path: "draft.md" } },
        { name: "write_file", arguments: { path: "./final.md", content: "# Plan\nship on friday" } },
      ],
      output_text: "Copied.",
      expected_reward: 1,
    },
    { case: "zero_reward", row: notes, tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "buy bread" } }], output_text: "Done.", expected_reward: 0 },
    // Saying the work is done does not make it so.
    { case: "zero_reward", row: notes, tool_calls: [{ name: "list_files", arguments: {} }], output_text: "I created notes.txt containing buy milk.", expected_reward: 0 },
    { case: "malformed", row: notes, tool_calls: [{ name: "write_file", arguments: { path: "notes.txt" } }], output_text: "", expected_reward: 0 },
    { case: "malformed", row: notes, tool_calls: [{ name: "read_file", arguments: { path: ["notes.txt"] } }], output_text: "{\"unterminated", expected_reward: 0 },
  ];
}

const tests = `
test("the sandbox is made on the first tool call from the row's initial files, and changed by the tools", async () => {
  let cookies = (await post("/seed_session", rows[1])).cookies;
  const listed = await post("/list_files", {}, cookies);
  assert.deepEqual(listed.json(), { files: ["config.ini"] });
  cookies = (await post("/write_file", { path: "config.ini", content: "debug=false" }, listed.cookies)).cookies;
  assert.deepEqual((await post("/read_file", { path: "/config.ini" }, cookies)).json(), { path: "config.ini", content: "debug=false" });
  assert.deepEqual((await post("/search_files", { text: "debug" }, cookies)).json(), { matches: [{ path: "config.ini", line: 1, text: "debug=false" }] });
  assert.match((await post("/read_file", { path: "missing.txt" }, cookies)).json().error, /No such file/);
});

test("two sessions never see each other's files", async () => {
  const a = (await post("/seed_session", rows[0])).cookies;
  const b = (await post("/seed_session", rows[0])).cookies;
  await post("/write_file", { path: "notes.txt", content: "buy milk" }, a);
  assert.deepEqual((await post("/list_files", {}, b)).json(), { files: [] });
});

test("verify compares every expected file; an untouched workspace keeps its initial files", async () => {
  const done = await play(rows[2]!, [{ name: "write_file", arguments: { path: "final.md", content: "# Plan\\nship on friday" } }]);
  assert.deepEqual([done.reward, done.files_matched, done.files_expected], [1, 2, 2]);
  const untouched = await play(rows[2]!, []);
  assert.deepEqual([untouched.reward, untouched.files_matched], [0, 1]);
});

test("the sandbox is disposed with the session (POST /cleanup/<rollout>)", async () => {
  const seeded = { ...rows[0], _ng_task_index: 0, _ng_rollout_index: 7 };
  const cookies = (await post("/seed_session", seeded)).cookies;
  await post("/write_file", { path: "notes.txt", content: "buy milk" }, cookies);
  assert.deepEqual((await client.request(url("/cleanup/0-7"), { method: "GET" })).json(), { clean: false });
  await post("/cleanup/0-7", {});
  assert.deepEqual((await client.request(url("/cleanup/0-7"), { method: "GET" })).json(), { clean: true });
  const verified = await post("/verify", { ...rows[0], response: responseOf([], "done") }, cookies);
  assert.equal(verified.json().reward, 0);
});

test("a bad argument is a 422 the model can read", async () => {
  assert.equal((await post("/write_file", { path: "notes.txt" })).status, 422);
});
`;

export const statefulSandbox: Archetype = {
  summary: "A per-session sandbox (a workspace of text files) changed by several tools; verify checks the files left",
  domain: "agent",
  readme: `**Archetype: stateful sandbox.** A workspace of text files per rollout.

- **Seed** \`initial_files: {path: content}\` (default \`{}\`). Seeding only records the task: the sandbox is created by
  the first tool call (the \`Sandbox\` class stands in for a container or VM) and disposed with the session
  (\`disposeState\`: idle TTL, or \`POST /cleanup/<rollout id>\`).
- **Tools** \`list_files {}\`, \`read_file {path}\`, \`write_file {path, content}\`, \`search_files {text}\`. Paths are
  relative (a leading \`/\` or \`./\` is dropped).
- **Verify** (\`expected_files: {path: content}\`): \`reward\` 1 iff every expected file holds exactly its expected
  content in this session's workspace. Extra fields: \`files_matched\`, \`files_expected\`.`,
  app,
  exampleRows,
  verifierCases,
  tests,
};
