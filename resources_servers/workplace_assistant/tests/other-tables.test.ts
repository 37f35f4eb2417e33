// A row written for other tables cannot be scored: NeMo Gym's rows name emails, events and customers by ids that
// this project's tables do not have, so their ground truth would change nothing and doing nothing would "score" 1.
// Such a row is a 501 naming the table and the id, at /seed_session (the agent posts the whole row there) and at
// /verify; through simple_agent the collector records it as a terminal not_implemented failure, never a reward.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectRollouts } from "../../../src/rollouts/collect.ts";
import { serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import workplace from "../app.ts";
import { loadTables } from "../workbench/tables-dir.ts";
import { tablesFolder, TablesConfigSchema } from "../workbench/tables-source.ts";
import { EXAMPLE_ROWS, action, startWorkplace, type Harness } from "./harness.ts";

const [emailRow, calendarRow] = EXAMPLE_ROWS as [Record<string, unknown>, Record<string, unknown>];

/** A row shaped like NeMo Gym's (its ids are 8-digit strings from its own tables), none of which exist here. */
const otherTablesRow = {
  ...emailRow,
  id: 7,
  ground_truth: [action("email_reply_email", { email_id: "00000057", body: "Thanks, will do." })],
};

let h: Harness;
before(async () => (h = await startWorkplace()));
after(() => h.close());

describe("a row whose ground truth names ids these tables do not have", () => {
  test("/seed_session is a 501 naming the table and the id", async () => {
    const answer = await h.post("/seed_session", otherTablesRow);
    assert.equal(answer.status, 501, answer.text);
    const { detail } = answer.json<{ detail: string }>();
    assert.match(detail, /email_id 00000057 \(ground_truth\[0\] email_reply_email\) is not in table emails/);
    assert.match(detail, /tables: ours \(.*data\/tables\)/);
    assert.match(detail, /tables: nemo_gym/);
  });

  test("/verify is the same 501, whatever the response", async () => {
    for (const calls of [[], otherTablesRow.ground_truth]) {
      const answer = await h.verify(otherTablesRow, calls);
      assert.equal(answer.status, 501, JSON.stringify(answer.body));
      assert.match(answer.body.detail, /email_id 00000057 .*is not in table emails/);
    }
  });

  test("every unknown id is named, by table: events, tasks, customers, visitors", async () => {
    const row = {
      ...calendarRow,
      ground_truth: [
        action("calendar_update_event", { event_id: "00000999", field: "event_name", new_value: "X" }),
        action("project_management_delete_task", { task_id: "00000998" }),
        action("customer_relationship_manager_update_customer", { customer_id: "00000997", field: "status", new_value: "Lost" }),
        action("analytics_get_visitor_information_by_id", { visitor_id: "no-such-visitor" }),
      ],
    };
    const { detail } = (await h.post("/seed_session", row)).json<{ detail: string }>();
    for (const named of ['event_id 00000999 (ground_truth[0] calendar_update_event) is not in table calendar_events', 'task_id 00000998 (ground_truth[1] project_management_delete_task) is not in table project_tasks', 'customer_id 00000997 (ground_truth[2] customer_relationship_manager_update_customer) is not in table customer_relationship_manager_data', 'visitor_id no-such-visitor (ground_truth[3] analytics_get_visitor_information_by_id) is not in table analytics_data']) {
      assert.ok(detail.includes(named), `${named}\nin: ${detail}`);
    }
  });

  test("ids the ground truth itself creates, and calls verify would skip, are not refused", async () => {
    const create = action("calendar_create_event", { event_name: "Kickoff", participant_email: "a@b.com", event_start: "2023-12-04 09:00:00", duration: "30" });
    // A new event's id is the greatest one + 1.
    const newId = String(Math.max(...loadTables(tablesFolder(TablesConfigSchema.parse({}))).calendarEvents.rows.map((row) => Number(row.event_id))) + 1).padStart(8, "0");
    const rename = action("calendar_update_event", { event_id: newId, field: "event_name", new_value: "Kick-off" });
    const skipped = [{ name: "no_such_tool", arguments: '{"email_id": "1"}' }, { name: "email_delete_email", arguments: "not json" }];
    const row = { ...calendarRow, ground_truth: [create, rename, ...skipped] };
    assert.equal((await h.post("/seed_session", row)).status, 200);
    assert.equal((await h.verify(row, [create, rename])).reward, 1);
    assert.equal((await h.verify(row, [create])).reward, 0);
  });

  test("this project's own example rows pass the check", async () => {
    for (const row of EXAMPLE_ROWS) assert.equal((await h.post("/seed_session", row)).status, 200, `row ${row.id}`);
  });
});

describe("collected through simple_agent", () => {
  let graph: InProcessGraph;
  before(async () => {
    graph = await startServers({
      workplace: [workplace],
      policy: [await serverDefinition("responses_api_models/scripted_model")],
      agent: [await serverDefinition("responses_api_agents/simple_agent"), { max_steps: 2, resources_server: { type: "resources_servers", name: "workplace" }, model_server: { type: "responses_api_models", name: "policy" } }],
    });
  });
  after(async () => {
    await graph?.client.close();
    await graph?.close();
  });

  test("the row is a terminal not_implemented failure naming the id, with no reward; a row for these tables is scored", async () => {
    const dir = mkdtempSync(join(tmpdir(), "workplace-other-tables-"));
    const inputPath = join(dir, "input.jsonl");
    writeFileSync(inputPath, `${[otherTablesRow, emailRow].map((row) => JSON.stringify(row)).join("\n")}\n`);
    const outputPath = join(dir, "out.jsonl");
    const summary = await collectRollouts({
      client: graph.client,
      inputPath,
      outputPath,
      agentName: "agent",
      maxAttempts: 3,
      retryBackoffMs: 5,
      disableAggregation: true,
      print: () => {},
      progressStream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
      runConfig: graph.config,
    });
    const read = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
    const output = read(outputPath);
    const failures = read(summary.failuresPath);
    assert.deepEqual([summary.succeeded, summary.failed], [1, 1]);
    assert.deepEqual(output.map((line) => [line._ng_task_index, typeof line.reward]), [[1, "number"]]);
    assert.equal(failures.length, 1, "a terminal failure is attempted once");
    const [failure] = failures as [Record<string, any>];
    assert.deepEqual([failure._ng_task_index, failure._ng_failure_class, failure._ng_failure_terminal, "reward" in failure], [0, "not_implemented", true, false]);
    assert.match(String(failure.error), /^an inner server answered 501: .*email_id 00000057 .*is not in table emails/);
  });
});
