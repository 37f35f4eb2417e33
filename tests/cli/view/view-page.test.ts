// `gym view` in a real browser (headless Chromium) over the files of a real small collection: the runs page with
// its plots (checked in the screenshot's pixels), the rollouts table filtered on the server, one rollout opened as a
// conversation, two runs compared, a run growing while the page is open, and the playground driving a real
// resources server found through a real head server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../../src/config/index.ts";
import { startHeadServer, type InstanceRecord } from "../../../src/cli/head-server.ts";
import { startViewServer, type ViewServer } from "../../../src/cli/view/view-server.ts";
import { CHART_COLOURS } from "../../../src/cli/view/app/chart-colours.ts";
import { browserSkip, launchBrowser, readScreenshot, rgb, type Browser } from "./browser.ts";
import { collectRuns, RESOURCES_SERVER, type CollectedRuns } from "./collected-runs.ts";

const skip = browserSkip;
let dir: string;
let runs: CollectedRuns;
let head: Awaited<ReturnType<typeof startHeadServer>>;
let view: ViewServer;
let browser: Browser;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "gym-view-page-"));
  runs = await collectRuns(dir);
  const counter = runs.graph.servers[RESOURCES_SERVER]!;
  // As the launcher lists an instance: `name` is the implementation, `process_name` the instance.
  const instance: InstanceRecord = {
    config_path: RESOURCES_SERVER, dir_path: join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt"), entrypoint: join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt/app.ts"),
    host: counter.host, name: "example_session_state_mgmt", pid: process.pid, port: counter.port, process_name: RESOURCES_SERVER, server_type: "resources_servers",
    start_time: Date.now() / 1000, status: "running", uptime_seconds: 1, url: counter.url,
  };
  head = await startHeadServer({ rawConfig: () => runs.graph.config, instances: () => [instance], token: "view-test" }, "127.0.0.1", 0);
  view = await startViewServer({ runPaths: [runs.collected, runs.rescored], headServerUrl: head.url });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await view?.close();
  await head?.app.close();
  await runs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const page = () => browser.page;
const text = (testId: string, nth = 0) => page().getByTestId(testId).nth(nth).innerText();

/** The centre of the first element matching `selector` whose box is at least 3 px each way. */
async function centreOf(selector: string): Promise<{ x: number; y: number }> {
  for (const element of await page().locator(selector).all()) {
    const box = await element.boundingBox();
    if (box && box.width >= 3 && box.height >= 3) return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }
  throw new Error(`no visible ${selector}`);
}

/** GYM_VIEW_SCREENSHOTS=<folder> keeps each page's screenshot there (the README's docs/gym-view.png is `runs.png`). */
function keep(name: string, png: Buffer): Buffer {
  if (process.env.GYM_VIEW_SCREENSHOTS) writeFileSync(join(process.env.GYM_VIEW_SCREENSHOTS, `${name}.png`), png);
  return png;
}

const near = (actual: [number, number, number], expected: [number, number, number]) => actual.every((channel, i) => Math.abs(channel - expected[i]!) <= 8);

test("the runs page shows each run's figures and its three plots, in the screenshot's pixels too", { skip }, async () => {
  await page().goto(`${view.url}/#runs`);
  await page().getByTestId("run-card").nth(1).waitFor();
  // 5 example rows × 2 repeats scored (task 4's expected count is not what its prompt asks: reward 0), 1 row × 2 refused.
  assert.equal(await text("figure-rollouts"), "10");
  assert.equal(await text("figure-mean-reward"), "0.800");
  assert.equal(await text("figure-failed"), "2");
  // Task 1 adds 10 at once, which the strict counter refuses: both its rollouts score 0 there.
  assert.deepEqual(runs.changed, [[1, 0], [1, 1]]);
  assert.equal(await text("figure-mean-reward", 1), "0.600");
  assert.match(await page().getByTestId("run-card").first().innerText(), /mean\/reward: 0\.800/, "the collection's aggregate metrics are shown");

  const shot = await readScreenshot(keep("runs", await page().screenshot()));
  assert.deepEqual([shot.width, shot.height], [1280, 800]);
  assert.ok(shot.colours > 100, `a rendered page has many colours, got ${shot.colours}`);
  const bar = await centreOf("[data-testid=chart-reward] rect.bar");
  assert.ok(near(shot.pixel(bar.x, bar.y), rgb(CHART_COLOURS.reward)), `reward bar at ${bar.x},${bar.y} is ${shot.pixel(bar.x, bar.y)}`);
  const point = await centreOf("[data-testid=chart-pass-at-k] circle");
  assert.ok(near(shot.pixel(point.x, point.y), rgb(CHART_COLOURS.passAtK)), `pass@k point is ${shot.pixel(point.x, point.y)}`);
  const failure = await centreOf("[data-testid=chart-failures] rect.bar");
  assert.ok(near(shot.pixel(failure.x, failure.y), rgb(CHART_COLOURS.failure)), `failure bar is ${shot.pixel(failure.x, failure.y)}`);
  // The pass@k curve of 0/1 rewards: pass@1 80%, pass@2 80% (each task's two repeats agree).
  const curve = (card: number) => page().getByTestId("run-card").nth(card).locator("[data-testid=chart-pass-at-k] circle title").allTextContents();
  assert.deepEqual(await curve(0), ["pass@1: 80.0%", "pass@2: 80.0%"]);
  assert.deepEqual(await curve(1), ["pass@1: 60.0%", "pass@2: 60.0%"]);
});

test("the rollouts table is filtered by status, reward and text, a page from the server", { skip }, async () => {
  await page().goto(`${view.url}/#rollouts`);
  await page().getByTestId("rollout-table").waitFor();
  assert.match(await text("table-count"), /^12 lines/);
  await page().getByTestId("filter-status").selectOption("failure");
  await page().getByText(/^2 lines/).waitFor();
  assert.deepEqual(await page().locator("[data-testid=rollout-row] td:nth-child(4)").allTextContents(), ["bad_request", "bad_request"]);
  await page().getByTestId("filter-status").selectOption("all");
  await page().getByTestId("filter-min-reward").fill("1");
  await page().getByText(/^8 lines/).waitFor();
  await page().getByTestId("filter-text").fill("increase the counter");
  await page().getByText(/^2 lines/).waitFor();
  assert.deepEqual(await page().locator("[data-testid=rollout-row] td:first-child").allTextContents(), ["1", "1"]);
});

test("a rollout opens as a conversation: the prompt, each tool call with its arguments and output, the reward", { skip }, async () => {
  await page().getByTestId("filter-text").fill("Add 4 to the counter");
  // The table shows "2 lines" already (the last test's filter): wait for the rows of this one, task 0's.
  await page().locator("[data-testid=rollout-row] td:first-child", { hasText: /^0$/ }).first().waitFor();
  await page().getByText(/^2 lines/).waitFor();
  assert.deepEqual(await page().locator("[data-testid=rollout-row] td:first-child").allTextContents(), ["0", "0"]);
  await page().getByTestId("rollout-row").first().click();
  const conversation = page().getByTestId("conversation");
  await conversation.waitFor();
  assert.match(await conversation.getByTestId("turn-user").innerText(), /Add 4 to the counter, then add 5/);
  const calls = conversation.getByTestId("turn-tool-call");
  assert.equal(await calls.count(), 3);
  assert.match((await calls.first().textContent()) ?? "", /increment_counter[\s\S]*"count": 4[\s\S]*"success": true/);
  assert.match((await calls.nth(2).textContent()) ?? "", /get_counter_value[\s\S]*"count": 9/);
  assert.equal(await text("conversation-reward"), "reward 1");
  keep("conversation", await page().screenshot());
  const shot = await readScreenshot(await page().getByTestId("conversation").screenshot());
  assert.ok(shot.width > 300 && shot.height > 200 && shot.colours > 20, `the conversation renders (${shot.width}×${shot.height}, ${shot.colours} colours)`);
});

test("two runs compared: only the rollouts whose reward changed, each opened side by side", { skip }, async () => {
  await page().goto(`${view.url}/#compare`);
  await page().getByTestId("compare-summary").waitFor();
  assert.match(await text("compare-summary"), /^10 rollouts in both · 2 with a changed reward · 0 only in A · 0 only in B/);
  const rows = await page().locator("[data-testid=compare-row]").evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(0, 4).map((td) => td.textContent)));
  assert.deepEqual(rows, runs.changed.map(([task, repeat]) => [String(task), String(repeat), "1", "0"]));
  await page().getByTestId("compare-row").first().click();
  const sides = page().getByTestId("side-by-side").getByTestId("conversation-reward");
  await sides.nth(1).waitFor();
  assert.deepEqual(await sides.allInnerTexts(), ["reward 1", "reward 0"]);
  keep("compare", await page().screenshot());
});

test("a run that grows while the page is open shows its new rollouts without a reload", { skip }, async () => {
  await page().goto(`${view.url}/#runs`);
  await page().getByTestId("run-card").nth(1).waitFor();
  assert.equal(await text("figure-rollouts", 1), "10");
  const last = readFileSync(runs.rescored, "utf8").trim().split("\n").at(-1)!;
  const line = JSON.parse(last);
  // (A half-written line waiting for its newline: view-api.test.ts.)
  appendFileSync(runs.rescored, JSON.stringify({ ...line, _ng_task_index: 7, reward: 0 }) + "\n");
  await page().getByTestId("figure-rollouts").nth(1).getByText("11").waitFor({ timeout: 4000 });
});

test("the playground seeds a session from a row, calls the tools from their forms and verifies, on the real server", { skip }, async () => {
  await page().goto(`${view.url}/#playground`);
  await page().getByTestId("playground-server").getByText(RESOURCES_SERVER, { exact: false }).waitFor({ state: "attached" });
  await page().getByTestId("playground-open").click();
  await page().getByTestId("tool-increment_counter").waitFor();
  assert.equal(await page().getByTestId("tool-get_counter_value").count(), 1);

  await page().getByTestId("seed-task").fill("0");
  await page().getByTestId("seed-load").click();
  await page().waitForFunction(`document.querySelector("[data-testid=seed-json]").value.includes("expected_count")`);
  const seed = JSON.parse(await page().getByTestId("seed-json").inputValue());
  assert.deepEqual([seed.initial_count, seed.expected_count], [0, 9], "the row comes from the run's materialized inputs");
  await page().getByTestId("seed-send").click();
  await page().getByTestId("call-entry").first().waitFor();

  const increment = page().getByTestId("tool-increment_counter");
  for (const count of ["4", "5"]) {
    await increment.locator("input[name=count]").fill(count);
    const before = await page().getByTestId("call-entry").count();
    await page().getByTestId("call-increment_counter").click();
    await page().getByTestId("call-entry").nth(before).waitFor();
  }
  await page().getByTestId("call-get_counter_value").click();
  await page().getByTestId("call-entry").nth(3).waitFor();
  assert.equal(JSON.parse(await page().getByTestId("call-answer").nth(3).innerText()).count, 9, "the calls share the session's cookie");

  await page().getByTestId("verify-send").click();
  await page().getByTestId("verify-reward").waitFor();
  assert.equal(await text("verify-reward"), "reward 1");
  const shot = await readScreenshot(keep("playground", await page().screenshot()));
  assert.ok(shot.colours > 50, `the playground renders (${shot.colours} colours)`);
});
