// The 27 tools over HTTP on the project's fixture tables: the schemas NeMo Gym serves, FastAPI's 422 for arguments
// that break them, and the Python tools' answers, error strings and coercions for everything else.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { assertRowsAreRunRequests, assertRowToolsMatchServer } from "../../../src/testing/index.ts";
import workplace from "../app.ts";
import { EXAMPLE_ROWS, startWorkplace, type Harness } from "./harness.ts";

let h: Harness;
before(async () => (h = await startWorkplace()));
after(() => h.close());

describe("schemas", () => {
  test("GET /tools serves the 27 tools exactly as the example rows offer them, strict false as in NeMo Gym", async () => {
    const answer = await fetch(`${h.url}/tools`);
    const tools = (await answer.json()) as { name: string; strict: boolean }[];
    assert.equal(tools.length, 27);
    assert.deepEqual(tools, workplace.toolDefinitions);
    assert.ok(tools.every((t) => t.strict === false));
    assertRowsAreRunRequests(EXAMPLE_ROWS);
    assertRowToolsMatchServer(EXAMPLE_ROWS, workplace.toolDefinitions);
  });
});

describe("malformed arguments are a 422 naming the field", () => {
  // The error types are pydantic lax mode's (src/python/pydantic/lax.ts): "2" would be read as the int 2, so the bad string is "two".
  const cases: [string, string, unknown, string, string | undefined][] = [
    ["a required field left out", "email_send_email", { recipient: "a@b.com", subject: "s" }, "body", "missing"],
    ["a number for a string", "calendar_delete_event", { event_id: 102 }, "event_id", "string_type"],
    ["a string for an integer", "email_search_emails", { query: "x", page: "two" }, "page", "int_parsing"],
    ["a fraction for an integer", "customer_relationship_manager_search_customers", { status: "Lead", page_size: 2.5 }, "page_size", undefined],
    ["null for a declared field", "project_management_create_task", { task_name: null, assigned_to_email: "a", list_name: "Backlog", due_date: "d", board: "Design" }, "task_name", "string_type"],
  ];
  for (const [what, tool, args, field, type] of cases) {
    test(`${tool}: ${what}`, async () => {
      const cookies = await h.seed();
      const answer = await h.call(cookies, tool, args);
      assert.equal(answer.status, 422, answer.text);
      const detail = JSON.parse(answer.text).detail as { loc: string[]; type: string }[];
      assert.deepEqual(detail[0]!.loc, ["body", field]);
      if (type !== undefined) assert.equal(detail[0]!.type, type);
    });
  }

  test("a body that is not a JSON object is a 422", async () => {
    const answer = await h.post("/email_delete_email", [1, 2], await h.seed());
    assert.equal(answer.status, 422);
  });
});

describe("what Python answers with 200 and a message", () => {
  test("a tool called before /seed_session is NeMo Gym's 400", async () => {
    const answer = await h.call({}, "email_delete_email", { email_id: "00000328" });
    assert.equal(answer.status, 400);
    assert.deepEqual(JSON.parse(answer.text), { detail: "Session not initialized. Please call seed_session first." });
  });

  test("an unexpected keyword is Python's TypeError, relayed to the model", async () => {
    const answer = await h.call(await h.seed(), "email_get_email_information_by_id", { email_id: "00000328", field: "subject", useless_argument: "x" });
    assert.equal(
      answer.output,
      "Error executing tool 'email_get_email_information_by_id': EmailTool.get_email_information_by_id() got an unexpected keyword argument 'useless_argument'",
    );
  });

  test("a null undeclared argument is dropped before the call, as NeMo Gym's route drops nulls", async () => {
    const answer = await h.call(await h.seed(), "email_get_email_information_by_id", { email_id: "00000328", field: "subject", useless_argument: null });
    assert.deepEqual(answer.output, { subject: "Request: Vendor Contract" });
  });

  test("an unknown tool is the KeyError of NeMo Gym's catch-all route", async () => {
    const answer = await h.call(await h.seed(), "email_archive_email", { email_id: "1" });
    assert.equal(answer.status, 200);
    assert.equal(answer.output, "Error executing tool 'email_archive_email': 'email_archive_email'");
  });

  test("the tools' own error strings", async () => {
    const cookies = await h.seed();
    const expectations: [string, Record<string, unknown>, unknown][] = [
      ["company_directory_find_email_address", { name: "" }, "Name not provided."],
      ["company_directory_find_email_address", {}, "Name not provided."],
      ["email_get_email_information_by_id", { email_id: "00000328", field: "cc" }, "Field 'cc' not found. Available fields: email_id, inbox/outbox, sender/recipient, subject, sent_datetime, body"],
      ["email_get_email_information_by_id", { email_id: "99999999", field: "body" }, "Email not found."],
      ["email_get_email_information_by_id", { email_id: "", field: "body" }, "Email ID not provided."],
      ["email_send_email", { recipient: "alex", subject: "s", body: "b" }, "Invalid recipient email address."],
      ["email_send_email", { recipient: "a@b.com", subject: "", body: "b" }, "Recipient, subject, or body not provided."],
      ["email_forward_email", { email_id: "00000999", recipient: "a@b.com" }, "Email not found."],
      ["email_search_emails", { query: "no such words anywhere" }, "No emails found."],
      ["email_search_emails", { query: "x", page_size: 0 }, "Error searching emails: integer division or modulo by zero"],
      ["calendar_get_event_information_by_id", { event_id: "102", field: "event_name" }, "Invalid event ID format. Expected 8-digit ID."],
      ["calendar_get_event_information_by_id", { event_id: "00000102", field: "room" }, "Invalid field. Available fields are: event_id, event_name, participant_email, event_start, duration"],
      ["calendar_search_events", { time_min: "next week" }, "Invalid time_min format. Expected YYYY-MM-DD HH:MM:SS."],
      ["calendar_create_event", { event_name: "x", participant_email: "a@b.com", event_start: "tomorrow", duration: "30" }, "Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS."],
      ["calendar_create_event", { event_name: "x", participant_email: "a@b.com", event_start: "2023-12-01 10:00:00", duration: "1h" }, "Invalid duration format. Expected a number of minutes."],
      ["calendar_create_event", { event_name: "x", participant_email: "a@b.com", event_start: "2023-12-01 10:00:00", duration: "0" }, "Duration must be a positive number of minutes."],
      ["calendar_update_event", { event_id: "00000102", field: "room", new_value: "A" }, "Invalid field. Available fields are: event_name, participant_email, event_start, duration"],
      ["calendar_delete_event", { event_id: "00000001" }, "Event not found."],
      ["analytics_get_visitor_information_by_id", { visitor_id: "nobody" }, "Visitor not found."],
      ["analytics_create_plot", { time_min: "2023-11-01", time_max: "2023-11-02", value_to_plot: "revenue", plot_type: "bar" }, "Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'"],
      ["analytics_create_plot", { time_min: "2023-11-01", time_max: "2023-11-02", value_to_plot: "total_visits", plot_type: "pie" }, "Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'"],
      ["project_management_search_tasks", {}, "No search parameters provided."],
      ["project_management_search_tasks", { assigned_to_email: "elena" }, "Invalid email format for assigned_to_email."],
      ["project_management_create_task", { task_name: "t", assigned_to_email: "someone@else.com", list_name: "Backlog", due_date: "2023-12-01", board: "Design" }, "Assignee email not valid. Please choose from the list of team members."],
      ["project_management_create_task", { task_name: "t", assigned_to_email: "elena.rossi@brightline.io", list_name: "backlog", due_date: "2023-12-01", board: "Design" }, "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'."],
      ["project_management_update_task", { task_id: "00000056", field: "board", new_value: "design" }, "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'."],
      ["project_management_update_task", { task_id: "00000056", field: "owner", new_value: "x" }, "Field not valid."],
      ["customer_relationship_manager_search_customers", {}, "No search parameters provided. Please provide at least one parameter."],
      ["customer_relationship_manager_search_customers", { customer_name: "Nobody Atall" }, "No customers found."],
      ["customer_relationship_manager_update_customer", { customer_id: "00000061", field: "status", new_value: "won" }, "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"],
      ["customer_relationship_manager_add_customer", { customer_name: "", assigned_to_email: "a@b.com", status: "Lead" }, "Please provide all required fields: customer_name, assigned_to_email, status."],
      ["customer_relationship_manager_delete_customer", { customer_id: "00000001" }, "Customer not found."],
    ];
    for (const [tool, args, expected] of expectations) {
      const answer = await h.call(cookies, tool, args);
      assert.deepEqual(answer.output, expected, `${tool} ${JSON.stringify(args)}`);
    }
  });

  test("a search term is a case-insensitive regular expression; a broken one is Python's re.error", async () => {
    const cookies = await h.seed();
    assert.deepEqual((await h.call(cookies, "company_directory_find_email_address", { name: "^(OMAR|hana)" })).output, ["omar.haddad@brightline.io", "hana.sato@brightline.io"]);
    assert.equal(
      (await h.call(cookies, "company_directory_find_email_address", { name: "(omar" })).output,
      "Error executing tool 'company_directory_find_email_address': missing ), unterminated subpattern at position 0",
    );
    assert.equal((await h.call(cookies, "calendar_search_events", { query: "*" })).output, "Error executing tool 'calendar_search_events': nothing to repeat at position 0");
  });
});

describe("results and coercions", () => {
  test("email search: every word in subject, body or address; newest first; paginated", async () => {
    const { output } = await h.call(await h.seed(), "email_search_emails", { query: "PRIYA vendor", page: 1, page_size: 1 });
    assert.deepEqual(output.pagination, { total_emails: 2, page: 1, page_size: 1, total_pages: 2 });
    assert.equal(output.emails[0].email_id, "00000328");
    // Bodies keep the CSV's literal backslash-n sequences.
    assert.ok(output.emails[0].body.startsWith("Hi Alex,\\n\\nCould we talk"));
  });

  test("a page past the end shows the last page; a negative page size slices as Python does", async () => {
    const cookies = await h.seed();
    const last = await h.call(cookies, "email_search_emails", { query: "priya vendor", page: 9, page_size: 1 });
    assert.deepEqual([last.output.pagination.page, last.output.emails[0].email_id], [2, "00000023"]);
    const negative = await h.call(cookies, "email_search_emails", { query: "priya vendor", page_size: -1 });
    assert.deepEqual(negative.output.pagination, { total_emails: 2, page: 1, page_size: -1, total_pages: 0 });
    assert.equal(negative.output.emails.length, 1);
  });

  test("sending: recipient lower-cased, id one above the greatest and not zero-padded, dated 2023-11-30 23:59:00", async () => {
    const cookies = await h.seed();
    assert.equal((await h.call(cookies, "email_send_email", { recipient: "New.Person@Example.COM", subject: "Hello", body: "Hi" })).output, "Email sent successfully.");
    const { output } = await h.call(cookies, "email_search_emails", { query: "new.person@example.com" });
    assert.deepEqual(output.emails[0], { email_id: "401", "inbox/outbox": "outbox", "sender/recipient": "new.person@example.com", subject: "Hello", sent_datetime: "2023-11-30 23:59:00", body: "Hi" });
    assert.equal((await h.call(cookies, "email_forward_email", { email_id: "00000328", recipient: "x@y.org" })).output, "Email forwarded successfully.");
    assert.deepEqual((await h.call(cookies, "email_get_email_information_by_id", { email_id: "402", field: "subject" })).output, { subject: "FW: Request: Vendor Contract" });
    assert.equal((await h.call(cookies, "email_reply_email", { email_id: "00000328", body: "Sure" })).output, "Email replied successfully.");
    assert.deepEqual((await h.call(cookies, "email_get_email_information_by_id", { email_id: "403", field: "sender/recipient" })).output, { "sender/recipient": "priya.raman@brightline.io" });
  });

  test("calendar: a new event's id is zero-padded; durations go through int() (spaces and signs allowed) but are stored as sent", async () => {
    const cookies = await h.seed();
    const created = await h.call(cookies, "calendar_create_event", { event_name: "Kickoff", participant_email: "Grace.Kim@brightline.io", event_start: "2023-12-04 09:00:00", duration: " +45 " });
    assert.equal(created.output, "00000300");
    const { output } = await h.call(cookies, "calendar_search_events", { query: "kickoff" });
    assert.deepEqual(output.events, [{ event_id: "00000300", event_name: "Kickoff", participant_email: "grace.kim@brightline.io", event_start: "2023-12-04 09:00:00", duration: " +45 " }]);
    assert.equal((await h.call(cookies, "calendar_update_event", { event_id: "00000300", field: "event_start", new_value: "Dec 5, 2023 3pm" })).output, "Event updated successfully.");
  });

  test("calendar search: time bounds, latest first", async () => {
    const { output } = await h.call(await h.seed(), "calendar_search_events", { query: "design review", time_min: "2023-12-01 00:00:00" });
    assert.deepEqual(
      output.events.map((e: { event_id: string }) => e.event_id),
      ["00000102", "00000075"],
    );
  });

  test("project management: assignee matched case-insensitively and stored lower-cased; list and board are case-sensitive", async () => {
    const cookies = await h.seed();
    const created = await h.call(cookies, "project_management_create_task", { task_name: "Ship it", assigned_to_email: "ELENA.ROSSI@brightline.io", list_name: "In Review", due_date: "2023-12-08", board: "Front end" });
    assert.equal(created.output, "00000288");
    const found = await h.call(cookies, "project_management_search_tasks", { task_name: "ship", board: "front" });
    assert.deepEqual(found.output, [{ task_id: "00000288", task_name: "Ship it", assigned_to_email: "elena.rossi@brightline.io", list_name: "In Review", due_date: "2023-12-08", board: "Front end" }]);
  });

  test("CRM: a blank CSV cell is null; a new customer gets notes \"\" and lower-cased emails", async () => {
    const cookies = await h.seed();
    const quinn = await h.call(cookies, "customer_relationship_manager_search_customers", { customer_name: "quinn fischer" });
    assert.equal(quinn.output.customers[0].customer_phone, null);
    assert.equal((await h.call(cookies, "customer_relationship_manager_add_customer", { customer_name: "Jo Park", assigned_to_email: "Hana.Sato@brightline.io", status: "Lead", customer_email: "JO@Park.io" })).output, "00000186");
    const jo = await h.call(cookies, "customer_relationship_manager_search_customers", { customer_name: "jo park" });
    assert.deepEqual(jo.output.customers[0], {
      customer_id: "00000186",
      assigned_to_email: "hana.sato@brightline.io",
      customer_name: "Jo Park",
      customer_email: "jo@park.io",
      customer_phone: null,
      last_contact_date: null,
      product_interest: null,
      status: "Lead",
      follow_up_by: null,
      notes: "",
    });
  });

  test("analytics: per-day counts and averages, keys in date order", async () => {
    const cookies = await h.seed();
    const range = { time_min: "2023-11-01", time_max: "2023-11-02" };
    assert.deepEqual((await h.call(cookies, "analytics_total_visits_count", range)).output, { "2023-11-01": 3, "2023-11-02": 1 });
    assert.deepEqual((await h.call(cookies, "analytics_engaged_users_count", range)).output, { "2023-11-01": 2, "2023-11-02": 1 });
    assert.deepEqual((await h.call(cookies, "analytics_traffic_source_count", { ...range, traffic_source: "social media" })).output, { "2023-11-01": 1, "2023-11-02": 0 });
    assert.deepEqual((await h.call(cookies, "analytics_get_average_session_duration", range)).output, { "2023-11-01": 64 / 3, "2023-11-02": 26 });
    assert.deepEqual((await h.call(cookies, "analytics_get_visitor_information_by_id", { visitor_id: "7957" })).output, [
      { date_of_visit: "2023-11-02", visitor_id: "7957", page_views: "6", session_duration_seconds: "26", traffic_source: "referral", user_engaged: true },
    ]);
    assert.equal((await h.call(cookies, "analytics_create_plot", { ...range, value_to_plot: "user_engaged", plot_type: "line" })).output, "plots/2023-11-01_2023-11-02_user_engaged_line.png");
  });
});
