// Each seeded session works on its own copy of the tables: writes made by one session, interleaved over HTTP with
// another's, are never seen by the other (nor by a session seeded afterwards).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startWorkplace, type Harness } from "./harness.ts";

let h: Harness;
before(async () => (h = await startWorkplace()));
after(() => h.close());

test("two sessions changing the same rows concurrently never see each other's writes", async () => {
  const [a, b] = await Promise.all([h.seed(), h.seed()]);
  assert.notDeepEqual(a, b);
  // Interleaved: A deletes what B updates, both create (each gets the same next id), both send mail.
  const results = await Promise.all([
    h.call(a, "email_delete_email", { email_id: "00000328" }),
    h.call(b, "email_forward_email", { email_id: "00000328", recipient: "b@session.io" }),
    h.call(a, "calendar_create_event", { event_name: "A only", participant_email: "a@session.io", event_start: "2023-12-04 09:00:00", duration: "30" }),
    h.call(b, "calendar_create_event", { event_name: "B only", participant_email: "b@session.io", event_start: "2023-12-04 10:00:00", duration: "30" }),
    h.call(a, "customer_relationship_manager_update_customer", { customer_id: "00000061", field: "status", new_value: "Won" }),
    h.call(b, "customer_relationship_manager_delete_customer", { customer_id: "00000061" }),
    h.call(a, "project_management_update_task", { task_id: "00000056", field: "list_name", new_value: "Completed" }),
    h.call(b, "analytics_create_plot", { time_min: "2023-11-01", time_max: "2023-11-02", value_to_plot: "total_visits", plot_type: "bar" }),
  ]);
  assert.deepEqual(
    results.map((r) => r.output),
    ["Email deleted successfully.", "Email forwarded successfully.", "00000300", "00000300", "Customer updated successfully.", "Customer deleted successfully.", "Task updated successfully.", "plots/2023-11-01_2023-11-02_total_visits_bar.png"],
  );

  const [aMail, bMail, aEvents, bEvents, aCustomer, bCustomer, aTask, bTask] = await Promise.all([
    h.call(a, "email_get_email_information_by_id", { email_id: "00000328", field: "subject" }),
    h.call(b, "email_get_email_information_by_id", { email_id: "00000328", field: "subject" }),
    h.call(a, "calendar_search_events", { query: "only" }),
    h.call(b, "calendar_search_events", { query: "only" }),
    h.call(a, "customer_relationship_manager_search_customers", { customer_name: "Quinn Fischer" }),
    h.call(b, "customer_relationship_manager_search_customers", { customer_name: "Quinn Fischer" }),
    h.call(a, "project_management_get_task_information_by_id", { task_id: "00000056", field: "list_name" }),
    h.call(b, "project_management_get_task_information_by_id", { task_id: "00000056", field: "list_name" }),
  ]);
  assert.equal(aMail.output, "Email not found.");
  assert.deepEqual(bMail.output, { subject: "Request: Vendor Contract" });
  assert.deepEqual(aEvents.output.events.map((e: { event_name: string }) => e.event_name), ["A only"]);
  assert.deepEqual(bEvents.output.events.map((e: { event_name: string }) => e.event_name), ["B only"]);
  assert.equal(aCustomer.output.customers[0].status, "Won");
  assert.equal(bCustomer.output, "No customers found.");
  assert.deepEqual(aTask.output, { list_name: "Completed" });
  assert.deepEqual(bTask.output, { list_name: "Backlog" });

  // A session seeded afterwards starts from the untouched tables.
  const c = await h.seed();
  assert.deepEqual((await h.call(c, "email_get_email_information_by_id", { email_id: "00000328", field: "subject" })).output, { subject: "Request: Vendor Contract" });
  assert.equal((await h.call(c, "calendar_search_events", { query: "only" })).output, "No events found.");
  assert.equal((await h.call(c, "customer_relationship_manager_search_customers", { customer_name: "Quinn Fischer" })).output.customers[0].status, "Proposal");
});

test("many sessions writing at once each end with exactly their own writes", async () => {
  const sessions = await Promise.all(Array.from({ length: 8 }, () => h.seed()));
  await Promise.all(
    sessions.flatMap((cookies, s) =>
      Array.from({ length: s + 1 }, (_, i) => h.call(cookies, "email_send_email", { recipient: `s${s}@mail.io`, subject: `note ${i}`, body: "x" })),
    ),
  );
  const counts = await Promise.all(sessions.map(async (cookies) => (await h.call(cookies, "email_search_emails", { query: "@mail.io", page_size: 50 })).output.pagination.total_emails));
  assert.deepEqual(counts, [1, 2, 3, 4, 5, 6, 7, 8]);
});
