// `computer-use`: one tool per UI action over a simulated screen (a sign-in form), plus `terminate`. Verify
// rewards a trajectory whose episode ended with terminate(success), as computer-use environments do.
import type { FunctionToolDefinition } from "../../server/index.ts";
import { classTitle } from "../common.ts";
import { importLines, row, type Archetype, type Row, type SourceContext, type VerifierCase } from "./shared.ts";

const app = (context: SourceContext) => `// ${context.name}: a simulated screen (a sign-in form) driven by one tool per UI action. The episode ends with
// terminate; verify rewards a trajectory that terminated with success and reports whether the row's goal was reached.
${importLines(context, [
  ["type { FunctionCall, NeMoGymResponse }", "src/protocol/index.ts"],
  ["{ resourcesServer, tool }", "src/server/index.ts"],
])}

const SCREEN = { width: 800, height: 600 };
const PAGE_HEIGHT = 1200;
const PIXELS_PER_SCROLL = 100;

interface Element {
  id: "username" | "password" | "remember_me" | "sign_in" | "terms";
  kind: "textbox" | "checkbox" | "button" | "link";
  label: string;
  /** Page coordinates of the top-left corner, in pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
}

const SIGN_IN_FORM: Element[] = [
  { id: "username", kind: "textbox", label: "Username", x: 250, y: 150, width: 300, height: 40 },
  { id: "password", kind: "textbox", label: "Password", x: 250, y: 220, width: 300, height: 40 },
  { id: "remember_me", kind: "checkbox", label: "Remember me", x: 250, y: 290, width: 20, height: 20 },
  { id: "sign_in", kind: "button", label: "Sign in", x: 250, y: 340, width: 120, height: 40 },
  { id: "terms", kind: "link", label: "Terms of service", x: 250, y: 1000, width: 160, height: 20 },
];

const PAGES = ["sign_in", "signed_in", "terms"] as const;

interface Screen {
  page: (typeof PAGES)[number];
  fields: { username: string; password: string };
  rememberMe: boolean;
  focused?: "username" | "password";
  scrollY: number;
  /** Set by terminate: the episode is over and the screen frozen. */
  status?: "success" | "failure";
}

const Status = z.enum(["success", "failure"]);
const TerminateInput = z.object({ status: Status.describe("success if the task is done, failure if it cannot be done.") });
const Goal = z.object({ page: z.enum(PAGES).optional(), username: z.string().optional(), remember_me: z.boolean().optional() });

function signIn(screen: Screen): string {
  if (!screen.fields.username || !screen.fields.password) return "Sign-in failed: username and password are required.";
  screen.page = "signed_in";
  return \`Signed in as \${screen.fields.username}.\`;
}

/** What the model sees: the visible elements with their on-screen boxes and values. */
function screenshot(screen: Screen) {
  if (screen.page === "signed_in") return { page: screen.page, text: \`Welcome, \${screen.fields.username}!\` };
  if (screen.page === "terms") return { page: screen.page, text: "Terms of service: be kind to the servers." };
  const visible = SIGN_IN_FORM.filter((e) => e.y + e.height > screen.scrollY && e.y < screen.scrollY + SCREEN.height);
  return {
    page: screen.page,
    screen_size: [SCREEN.width, SCREEN.height],
    scroll_y: screen.scrollY,
    focused: screen.focused ?? null,
    elements: visible.map((e) => ({
      label: e.label,
      kind: e.kind,
      box: [e.x, e.y - screen.scrollY, e.width, e.height],
      ...(e.id === "username" || e.id === "password" ? { value: e.id === "password" ? "•".repeat(screen.fields.password.length) : screen.fields.username } : {}),
      ...(e.id === "remember_me" ? { checked: screen.rememberMe } : {}),
    })),
  };
}

/** Every action but screenshot is refused once the episode is over. */
const act = (screen: Screen, action: (screen: Screen) => string) => (screen.status ? { error: "The episode is over." } : { result: action(screen) });

/** The first well-formed terminate call ends the episode; its status, if there was one. */
function terminationOf(output: NeMoGymResponse["output"]): "success" | "failure" | undefined {
  const calls = output.filter((item): item is FunctionCall => item.type === "function_call" && item.name === "terminate");
  for (const call of calls) {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      continue;
    }
    const parsed = TerminateInput.safeParse(args);
    if (parsed.success) return parsed.data.status;
  }
  return undefined;
}

function goalReached(screen: Screen, goal: z.output<typeof Goal>): boolean {
  return (
    (goal.page === undefined || screen.page === goal.page) &&
    (goal.username === undefined || screen.fields.username === goal.username) &&
    (goal.remember_me === undefined || screen.rememberMe === goal.remember_me)
  );
}

export default resourcesServer({
  name: "${classTitle(context.name)}ResourcesServer",
  state: (): Screen => ({ page: "sign_in", fields: { username: "", password: "" }, rememberMe: false, scrollY: 0 }),
  tools: {
    screenshot: tool({
      description: "Describe the screen: the visible elements, each with its box [x, y, width, height] in pixels.",
      input: z.object({}),
      run: (screen: Screen) => screenshot(screen),
    }),
    click: tool({
      description: "Click at a point of the screen.",
      input: z.object({
        x: z.number().int().min(0).max(799).describe("Pixels from the left edge."),
        y: z.number().int().min(0).max(599).describe("Pixels from the top edge."),
      }),
      run: (screen: Screen, { x, y }) =>
        act(screen, () => {
          if (screen.page !== "sign_in") return "Nothing to click here.";
          const target = SIGN_IN_FORM.find((e) => x >= e.x && x < e.x + e.width && y + screen.scrollY >= e.y && y + screen.scrollY < e.y + e.height);
          if (!target) return \`Nothing to click at (\${x}, \${y}).\`;
          if (target.id === "username" || target.id === "password") screen.focused = target.id;
          if (target.id === "remember_me") screen.rememberMe = !screen.rememberMe;
          if (target.id === "sign_in") return signIn(screen);
          if (target.id === "terms") screen.page = "terms";
          return \`Clicked \${target.label}.\`;
        }),
    }),
    type_text: tool({
      description: "Type text into the focused text box.",
      input: z.object({ text: z.string().describe("The text to type.") }),
      run: (screen: Screen, { text }) =>
        act(screen, () => {
          if (screen.page !== "sign_in" || !screen.focused) return "No text box has the focus; click one first.";
          screen.fields[screen.focused] += text;
          return \`Typed into \${screen.focused}.\`;
        }),
    }),
    press_key: tool({
      description: "Press a key: Enter submits the form, Tab moves to the next text box, Backspace deletes a character.",
      input: z.object({ key: z.enum(["Enter", "Tab", "Backspace"]).describe("The key to press.") }),
      run: (screen: Screen, { key }) =>
        act(screen, () => {
          if (screen.page !== "sign_in") return \`Pressed \${key}.\`;
          if (key === "Enter") return signIn(screen);
          if (key === "Tab") screen.focused = screen.focused === "username" ? "password" : "username";
          if (key === "Backspace" && screen.focused) screen.fields[screen.focused] = screen.fields[screen.focused].slice(0, -1);
          return \`Pressed \${key}.\`;
        }),
    }),
    scroll: tool({
      description: \`Scroll the page up or down by a number of notches (\${PIXELS_PER_SCROLL} pixels each).\`,
      input: z.object({
        direction: z.enum(["down", "up"]).describe("Which way to scroll."),
        amount: z.number().int().min(1).max(10).describe("How many notches."),
      }),
      run: (screen: Screen, { direction, amount }) =>
        act(screen, () => {
          const delta = (direction === "down" ? 1 : -1) * amount * PIXELS_PER_SCROLL;
          screen.scrollY = Math.min(Math.max(screen.scrollY + delta, 0), PAGE_HEIGHT - SCREEN.height);
          return \`Scrolled to y=\${screen.scrollY}.\`;
        }),
    }),
    terminate: tool({
      description: "End the episode: success if the task is done, failure if it cannot be done.",
      input: TerminateInput,
      run: (screen: Screen, { status }) =>
        act(screen, () => {
          screen.status = status;
          return \`Episode ended: \${status}.\`;
        }),
    }),
  },
  verify: {
    input: z.object({ goal: Goal.default({}) }),
    run: (screen, { response, goal }) => {
      const status = terminationOf(response.output);
      return {
        reward: status === "success" ? 1 : 0,
        terminated: status ?? "no",
        // Termination is the model's own claim; this says whether the screen agrees.
        goal_reached: screen !== undefined && goalReached(screen, goal),
      };
    },
  },
});
`;

const DEVELOPER =
  "You operate a computer screen through tools: screenshot describes it, click / type_text / press_key / scroll act on it. When the task is done call terminate with success; if it cannot be done, terminate with failure.";

function exampleRows(tools: FunctionToolDefinition[]): Row[] {
  return [
    row(DEVELOPER, 'Sign in as "alice" with the password "wonderland", then terminate with success.', tools, { goal: { page: "signed_in", username: "alice" } }),
    row(DEVELOPER, 'The username field is at (400, 170). Click it, type "bob", and terminate with success when done.', tools, { goal: { username: "bob" } }),
    row(DEVELOPER, 'Tick the "Remember me" box at (260, 300), then terminate with success.', tools, { goal: { remember_me: true } }),
    row(DEVELOPER, 'Scroll down to the "Terms of service" link, open it, then terminate.', tools, { goal: { page: "terms" } }),
    row(DEVELOPER, 'Click the username field at (400, 170), type "carol", press Tab, type "secret" and press Enter. Terminate with success once you see the welcome page.', tools, {
      goal: { page: "signed_in", username: "carol" },
    }),
  ];
}

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

function verifierCases(rows: Row[]): VerifierCase[] {
  return [
    {
      case: "full_reward",
      row: rows[4]!,
      tool_calls: [call("click", { x: 400, y: 170 }), call("type_text", { text: "carol" }), call("press_key", { key: "Tab" }), call("type_text", { text: "secret" }), call("press_key", { key: "Enter" }), call("terminate", { status: "success" })],
      output_text: "Signed in as carol.",
      expected_reward: 1,
    },
    { case: "full_reward", row: rows[2]!, tool_calls: [call("screenshot"), call("click", { x: 260, y: 300 }), call("terminate", { status: "success" })], output_text: "Ticked.", expected_reward: 1 },
    { case: "zero_reward", row: rows[0]!, tool_calls: [call("screenshot"), call("terminate", { status: "failure" })], output_text: "I could not sign in.", expected_reward: 0 },
    // Only a terminate call counts, not a claim in text; and the first terminate ends the episode.
    { case: "zero_reward", row: rows[0]!, tool_calls: [], output_text: "I terminated with success.", expected_reward: 0 },
    { case: "zero_reward", row: rows[0]!, tool_calls: [call("terminate", { status: "failure" }), call("terminate", { status: "success" })], output_text: "", expected_reward: 0 },
    { case: "malformed", row: rows[0]!, tool_calls: [call("terminate", { status: "done" })], output_text: "", expected_reward: 0 },
    { case: "malformed", row: rows[1]!, tool_calls: [call("click", { x: "left", y: 10 })], output_text: "{\"x\":", expected_reward: 0 },
  ];
}

const tests = `
test("click focuses a text box, typing fills it, Tab moves on, Enter signs in", async () => {
  let cookies = (await post("/seed_session", rows[4])).cookies;
  for (const [action, args] of [["click", { x: 400, y: 170 }], ["type_text", { text: "carol" }], ["press_key", { key: "Tab" }], ["type_text", { text: "secret" }]] as const) {
    cookies = (await post(\`/\${action}\`, args, cookies)).cookies;
  }
  const form = (await post("/screenshot", {}, cookies)).json();
  assert.deepEqual(form.elements.slice(0, 2).map((e: any) => e.value), ["carol", "••••••"]);
  assert.deepEqual((await post("/press_key", { key: "Enter" }, cookies)).json(), { result: "Signed in as carol." });
  assert.deepEqual((await post("/screenshot", {}, cookies)).json(), { page: "signed_in", text: "Welcome, carol!" });
});

test("scrolling brings the terms link into view; clicking it opens the page", async () => {
  const cookies = (await post("/seed_session", rows[3])).cookies;
  assert.equal((await post("/screenshot", {}, cookies)).json().elements.some((e: any) => e.label === "Terms of service"), false);
  await post("/scroll", { direction: "down", amount: 6 }, cookies);
  const link = (await post("/screenshot", {}, cookies)).json().elements.find((e: any) => e.label === "Terms of service");
  assert.deepEqual(link.box, [250, 400, 160, 20]);
  assert.deepEqual((await post("/click", { x: 260, y: 405 }, cookies)).json(), { result: "Clicked Terms of service." });
  assert.equal((await post("/screenshot", {}, cookies)).json().page, "terms");
});

test("after terminate every action is refused", async () => {
  const cookies = (await post("/seed_session", rows[2])).cookies;
  await post("/terminate", { status: "failure" }, cookies);
  assert.deepEqual((await post("/click", { x: 260, y: 300 }, cookies)).json(), { error: "The episode is over." });
  assert.deepEqual((await post("/terminate", { status: "success" }, cookies)).json(), { error: "The episode is over." });
});

test("verify pays terminate(success) and reports whether the screen reached the row's goal", async () => {
  const honest = await play(rows[2]!, [{ name: "click", arguments: { x: 260, y: 300 } }, { name: "terminate", arguments: { status: "success" } }]);
  assert.deepEqual([honest.reward, honest.terminated, honest.goal_reached], [1, "success", true]);
  const premature = await play(rows[2]!, [{ name: "terminate", arguments: { status: "success" } }]);
  assert.deepEqual([premature.reward, premature.goal_reached], [1, false]);
  const none = await play(rows[2]!, [{ name: "screenshot", arguments: {} }]);
  assert.deepEqual([none.reward, none.terminated], [0, "no"]);
});

test("an action outside the screen or with a bad argument is a 422", async () => {
  assert.equal((await post("/click", { x: 900, y: 10 })).status, 422);
  assert.equal((await post("/press_key", { key: "F5" })).status, 422);
});
`;

export const computerUse: Archetype = {
  summary: "Computer use: one tool per UI action over a simulated screen; verify rewards terminate(success)",
  domain: "agent",
  readme: `**Archetype: computer use.** One tool per UI action over a simulated screen (a sign-in form, 800×600, the
page 1200 px tall), in place of a real desktop.

- **State** per session: the page (\`sign_in\`, \`signed_in\`, \`terms\`), the text fields, the checkbox, the focus, the
  scroll offset, and the terminate status. Nothing is seeded: every rollout starts on the same screen.
- **Tools** \`screenshot {}\` (visible elements with boxes \`[x, y, width, height]\`), \`click {x, y}\`,
  \`type_text {text}\`, \`press_key {key: Enter|Tab|Backspace}\`, \`scroll {direction, amount}\`,
  \`terminate {status: success|failure}\`. After terminate every action is refused.
- **Verify** (\`goal\`, optional): \`reward\` 1 iff the first well-formed \`terminate\` call of the trajectory says
  \`success\`, else 0 (a claim in the assistant's text counts for nothing). Termination is the model's own claim,
  so the extra field \`goal_reached\` says whether the screen matches the row's \`goal\` (\`page\`, \`username\`,
  \`remember_me\`); \`terminated\` is \`success\`, \`failure\` or \`no\`.`,
  app,
  exampleRows,
  verifierCases,
  tests,
};
