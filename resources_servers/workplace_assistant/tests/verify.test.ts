// Verify as NeMo Gym's is_correct decides it: the response's function calls replayed on a fresh copy of the
// tables, the ground truth on another, the compared tables equal after lower-casing (status, list_name and board
// keep their case), row labels included. Over HTTP on the project's fixture tables.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadTables } from "../workbench/tables-dir.ts";
import { EXAMPLE_ROWS, action, startWorkplace, type Harness } from "./harness.ts";

let h: Harness;
before(async () => (h = await startWorkplace()));
after(() => h.close());

const [emailRow, calendarRow, tasksRow, crmRow, plotRow] = EXAMPLE_ROWS as [any, any, any, any, any];
const gt = (row: any) => row.ground_truth as { name: string; arguments: string }[];
const withGroundTruth = (row: any, groundTruth: unknown) => ({ ...row, ground_truth: groundTruth });
const reply = (body: string) => action("email_reply_email", { email_id: "00000328", body });
const addJordan = (extra: Record<string, unknown> = {}) => action("customer_relationship_manager_add_customer", { customer_name: "Jordan Baker", assigned_to_email: "hana.sato@brightline.io", status: "Lead", ...extra });

describe("the example rows", () => {
  test("each row's ground truth scores 1 and changes the tables (no calls scores 0)", async () => {
    for (const row of EXAMPLE_ROWS) {
      assert.equal((await h.verify(row, gt(row))).reward, 1, `row ${row.id}`);
      assert.equal((await h.verify(row, [])).reward, 0, `row ${row.id} without calls`);
    }
  });

  test("the verify response is NeMo Gym's: the request's params and response plus reward, no other field", async () => {
    const answer = await h.post("/verify", { ...emailRow, response: { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: false, tool_choice: "auto", tools: [] } });
    assert.deepEqual(Object.keys(answer.json()), ["responses_create_params", "response", "reward"]);
    assert.match(answer.text, /"reward":0\.0\}$/);
  });
});

describe("verify rules", () => {
  test("empty output: 0 when the task changes something, 1 when nothing should change", async () => {
    assert.equal((await h.verify(emailRow, [])).reward, 0);
    assert.equal((await h.verify(withGroundTruth(emailRow, []), [])).reward, 1);
  });

  test("read-only calls and calls that fail never hurt", async () => {
    const calls = [
      { name: "email_search_emails", arguments: { query: "priya" } },
      { name: "email_delete_email", arguments: { email_id: "99999999" } },
      { name: "email_reply_email", arguments: { email_id: "00000328" } },
      { name: "email_archive_email", arguments: { email_id: "00000328" } },
      { name: "email_reply_email", arguments: '{"email_id": "00000328", "body": ' },
      { name: "email_reply_email", arguments: "[1, 2]" },
      { name: "email_reply_email", arguments: { email_id: "00000328", body: "Hi", cc: "x@y.z" } },
      ...gt(emailRow),
    ];
    assert.equal((await h.verify(emailRow, calls)).reward, 1);
  });

  test("an extra write scores 0", async () => {
    assert.equal((await h.verify(crmRow, [...gt(crmRow), ...gt(crmRow)])).reward, 0);
    assert.equal((await h.verify(emailRow, [...gt(emailRow), action("email_delete_email", { email_id: "00000001" })])).reward, 0);
  });

  test("order: independent updates in any order score 1; a delete and a send swapped relabel the rows and score 0", async () => {
    assert.equal((await h.verify(tasksRow, [...gt(tasksRow)].reverse())).reward, 1);
    const send = action("email_send_email", { recipient: "a@b.com", subject: "S", body: "B" });
    const remove = action("email_delete_email", { email_id: "00000001" });
    assert.equal((await h.verify(withGroundTruth(emailRow, [remove, send]), [remove, send])).reward, 1);
    assert.equal((await h.verify(withGroundTruth(emailRow, [remove, send]), [send, remove])).reward, 0);
  });

  test("case: ignored except in status, list_name and board", async () => {
    assert.equal((await h.verify(emailRow, [reply("HAPPY TO TALK ON THURSDAY.")])).reward, 1);
    assert.equal((await h.verify(calendarRow, [action("calendar_update_event", { event_id: "00000102", field: "event_name", new_value: "ARCHITECTURE review" })])).reward, 1);
    assert.equal((await h.verify(crmRow, [addJordan({ status: "lead" })])).reward, 0);
    assert.equal((await h.verify(crmRow, [addJordan({ customer_name: "JORDAN BAKER", assigned_to_email: "Hana.Sato@BRIGHTLINE.io" })])).reward, 1);
    const lowerList = action("project_management_update_task", { task_id: "00000056", field: "list_name", new_value: "In Progress" });
    assert.equal((await h.verify(withGroundTruth(tasksRow, [lowerList]), [lowerList])).reward, 1);
  });

  test("whitespace and formats are compared as sent: no trimming, no date normalising", async () => {
    assert.equal((await h.verify(emailRow, [reply("Happy to talk on Thursday. ")])).reward, 0);
    const plot = (time_min: string) => action("analytics_create_plot", { time_min, time_max: "2023-11-15", value_to_plot: "user_engaged", plot_type: "line" });
    assert.equal((await h.verify(plotRow, [plot("2023-11-1")])).reward, 0);
    assert.equal((await h.verify(plotRow, [plot("2023-11-01")])).reward, 1);
  });

  test("types: a value that is not a string reads as NaN after lower-casing, so it never equals the string", async () => {
    const event = (duration: unknown) => action("calendar_create_event", { event_name: "Kickoff", participant_email: "a@b.com", event_start: "2023-12-04 09:00:00", duration });
    const row = withGroundTruth(calendarRow, [event("30")]);
    assert.equal((await h.verify(row, [event("30")])).reward, 1);
    assert.equal((await h.verify(row, [event(30)])).reward, 0);
    // A rejected event (duration 0) writes nothing, so a retry still scores.
    assert.equal((await h.verify(row, [event("0"), event("30")])).reward, 1);
  });

  test("null is passed to the tool as None: notes=None is not the default \"\"", async () => {
    assert.equal((await h.verify(crmRow, [addJordan({ notes: null })])).reward, 0);
    assert.equal((await h.verify(crmRow, [addJordan({ notes: "" })])).reward, 1);
  });

  test("verify replays the response, not the session: calls made on the session but absent from the response do not count", async () => {
    const cookies = await h.seed();
    await h.call(cookies, "email_reply_email", { email_id: "00000328", body: "Happy to talk on Thursday." });
    assert.equal((await h.verify(emailRow, [], cookies)).reward, 0);
    assert.equal((await h.verify(emailRow, gt(emailRow), {})).reward, 1);
  });

  test("a string ground truth holds no action (Python iterates its characters)", async () => {
    assert.equal((await h.verify(withGroundTruth(emailRow, "email_reply_email"), [])).reward, 1);
    assert.equal((await h.verify(withGroundTruth(emailRow, "email_reply_email"), gt(emailRow))).reward, 0);
  });

  test("a ground-truth action without a name or arguments is skipped", async () => {
    assert.equal((await h.verify(withGroundTruth(emailRow, [{ name: "email_reply_email" }]), [])).reward, 1);
  });

  test("a number among strings lower-cases to NaN; a column of numbers only fails verify with a 500, as pandas' .str does", async () => {
    const phone = action("customer_relationship_manager_update_customer", { customer_id: "00000092", field: "customer_phone", new_value: 5551234 });
    assert.equal((await h.verify(withGroundTruth(crmRow, []), [phone])).reward, 0);
    const eventIds = loadTables(join(import.meta.dirname, "../data/tables")).calendarEvents.rows.map((row) => row.event_id as string);
    const everyDurationANumber = eventIds.map((event_id) => action("calendar_update_event", { event_id, field: "duration", new_value: 60 }));
    const answer = await h.verify(withGroundTruth(calendarRow, []), everyDurationANumber);
    assert.equal(answer.status, 500);
    assert.match(JSON.stringify(answer.body), /Can only use \.str accessor with string values!/);
  });
});

describe("verify request fields, as NeMo Gym's WorkbenchVerifyRequest types them", () => {
  for (const field of ["ground_truth", "id", "category", "environment_name"]) {
    test(`without ${field}: 422 naming it`, async () => {
      const { [field]: _dropped, ...row } = emailRow;
      const answer = await h.verify(row, []);
      assert.equal(answer.status, 422);
      assert.ok(answer.body.detail.some((d: { loc: string[] }) => d.loc.includes(field)), JSON.stringify(answer.body));
    });
  }

  test("ground-truth arguments must be JSON strings; id may be an integer-valued string", async () => {
    assert.equal((await h.verify(withGroundTruth(emailRow, [{ name: "email_reply_email", arguments: { email_id: "1" } }]), [])).status, 422);
    assert.equal((await h.verify({ ...emailRow, id: "0" }, gt(emailRow))).reward, 1);
  });
});
