// τ²-bench's telecom domain, the agent's side (src/tau2/domains/telecom/data_model.py, tools.py): the carrier's DB
// of plans, customers, lines, bills and devices, the agent's 13 tools, and the functions tasks call on it to set a
// scenario up (initialization_actions) and to check its end (env_assertions). τ²-bench's quirks are kept: "today"
// is 2025-02-25; a dict a tool returns is written with its numbers and booleans as strings (Environment.to_json_str);
// a new draft bill gets a random id (uuid4), so a run that creates one never matches a gold DB that does too.
import { randomUUID } from "node:crypto";
import { parse as parseToml } from "smol-toml";
import { floatRepr } from "../../python/float.ts";
import { fail } from "./airline.ts";
import { isIntegerLiteral, type Tau2Domain, type Tau2Tool } from "./domain.ts";
import { model, type Shape } from "./model-dump.ts";
import { TELECOM_AGENT_TOOL_SCHEMAS } from "./telecom-schemas.ts";
import { telecomUserSide } from "./telecom-user.ts";

type Obj = Record<string, any>;

/** utils.get_today(): τ²-bench's telecom world is always on this day. */
export const TELECOM_TODAY = "2025-02-25";

// The data model, as shapes for the tool messages (field order, float vs int) and as loaders filling pydantic's
// defaults. A datetime field holds Python's str() of the datetime ("2025-01-20 14:30:00"): that is what every
// path out of the DB writes (json.dumps(model_dump(), default=str)); a date field holds its ISO date.
const address: Shape = { model: [["street", "str"], ["city", "str"], ["state", "str"], ["zip_code", "str"]] };
const planShape: Shape = { model: [["plan_id", "str"], ["name", "str"], ["data_limit_gb", "float"], ["price_per_month", "float"], ["data_refueling_price_per_gb", "float"]] };
const deviceShape: Shape = { model: [["device_id", "str"], ["device_type", "str"], ["model", "str"], ["imei", "str"], ["is_esim_capable", "bool"], ["activated", "bool"], ["activation_date", "str"], ["last_esim_transfer_date", "str"]] };
export const lineShape: Shape = {
  model: [
    ["line_id", "str"], ["phone_number", "str"], ["status", "str"], ["plan_id", "str"], ["device_id", "str"], ["data_used_gb", "float"], ["data_refueling_gb", "float"],
    ["roaming_enabled", "bool"], ["contract_end_date", "str"], ["last_plan_change_date", "str"], ["last_sim_replacement_date", "str"], ["suspension_start_date", "str"],
  ],
};
const lineItemShape: Shape = { model: [["description", "str"], ["amount", "float"], ["date", "str"], ["item_type", "str"]] };
const billShape: Shape = {
  model: [["bill_id", "str"], ["customer_id", "str"], ["period_start", "str"], ["period_end", "str"], ["issue_date", "str"], ["total_due", "float"], ["due_date", "str"], ["line_items", { list: lineItemShape }], ["status", "str"]],
};
const customerShape: Shape = {
  model: [
    ["customer_id", "str"], ["full_name", "str"], ["date_of_birth", "str"], ["email", "str"], ["phone_number", "str"], ["address", address], ["account_status", "str"],
    ["payment_methods", { list: { model: [["method_type", "str"], ["account_number_last_4", "str"], ["expiration_date", "str"]] } }],
    ["line_ids", { list: "str" }], ["bill_ids", { list: "str" }], ["created_at", "str"], ["last_extension_date", "str"], ["goodwill_credit_used_this_year", "float"],
  ],
};

/** pydantic's datetime parsed from ISO text, written back by str(): a "T" becomes a space, a bare date gains midnight. */
function datetimeStr(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text} 00:00:00` : text.replace("T", " ");
}
const orNull = (value: unknown) => (value === undefined ? null : value);
const withDefaults = (row: Obj, defaults: Obj): Obj => ({ ...defaults, ...Object.fromEntries(Object.entries(row).map(([k, v]) => [k, orNull(v)])) });

/** TelecomDB.load(db.toml): the TOML read, each record given its model's defaults. */
export function loadTelecomDb(text: string): Obj {
  const raw = JSON.parse(JSON.stringify(parseToml(text))) as Obj;
  return {
    plans: (raw.plans ?? []).map((p: Obj) => ({ ...p })),
    customers: (raw.customers ?? []).map((c: Obj) => {
      const customer = withDefaults(c, { account_status: "Pending Verification", payment_methods: [], line_ids: [], bill_ids: [], last_extension_date: null, goodwill_credit_used_this_year: 0 });
      // The default is DEFAULT_START_DATE, a date pydantic does not validate into a datetime: it prints as a date.
      customer.created_at = c.created_at === undefined ? "2025-01-01" : datetimeStr(c.created_at);
      return customer;
    }),
    lines: (raw.lines ?? []).map((l: Obj) =>
      withDefaults(l, { status: "Pending Activation", device_id: null, data_used_gb: 0, data_refueling_gb: 0, roaming_enabled: false, contract_end_date: null, last_plan_change_date: null, last_sim_replacement_date: null, suspension_start_date: null }),
    ),
    bills: (raw.bills ?? []).map((b: Obj) => ({ ...withDefaults(b, { line_items: [], status: "Draft" }), line_items: (b.line_items ?? []).map((i: Obj) => ({ ...i })) })),
    devices: (raw.devices ?? []).map((d: Obj) => {
      const device = withDefaults(d, { imei: null, activated: false });
      device.activation_date = datetimeStr(d.activation_date);
      device.last_esim_transfer_date = datetimeStr(d.last_esim_transfer_date);
      return device;
    }),
  };
}

// --- Dates (datetime.date arithmetic on ISO strings) ---
const toDate = (iso: string) => new Date(`${iso}T00:00:00Z`);
const iso = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (isoDate: string, days: number) => iso(new Date(toDate(isoDate).getTime() + days * 86_400_000));
const firstOfMonth = (isoDate: string) => `${isoDate.slice(0, 8)}01`;
/** date(y, m + 1, 1) with τ²-bench's December rollover. */
const firstOfNextMonth = (isoDate: string) => {
  const [y, m] = [Number(isoDate.slice(0, 4)), Number(isoDate.slice(5, 7))];
  return m < 12 ? `${y}-${String(m + 1).padStart(2, "0")}-01` : `${y + 1}-01-01`;
};

// --- Lookups (the toolkit's private helpers; their ValueErrors are the tool's error text) ---
const lineById = (db: Obj, id: string): Obj => db.lines.find((l: Obj) => l.line_id === id) ?? fail(`Line with ID ${id} not found`);
const planById = (db: Obj, id: string): Obj => db.plans.find((p: Obj) => p.plan_id === id) ?? fail(`Plan with ID ${id} not found`);
const deviceById = (db: Obj, id: string): Obj => db.devices.find((d: Obj) => d.device_id === id) ?? fail(`Device with ID ${id} not found`);
const billById = (db: Obj, id: string): Obj => db.bills.find((b: Obj) => b.bill_id === id) ?? fail(`Bill with ID ${id} not found`);
export const customerById = (db: Obj, id: string): Obj => db.customers.find((c: Obj) => c.customer_id === id) ?? fail(`Customer with ID ${id} not found`);
export function lineByPhone(db: Obj, phone: string): Obj {
  return db.lines.find((l: Obj) => l.phone_number === phone) ?? fail(`Line with phone number ${phone} not found`);
}
function customerByPhone(db: Obj, phone: string): Obj {
  for (const customer of db.customers) {
    if (customer.phone_number === phone) return customer;
    for (const lineId of customer.line_ids) if (lineById(db, lineId).phone_number === phone) return customer;
  }
  return fail(`Customer with phone number ${phone} not found`);
}
function targetLine(db: Obj, customerId: string, lineId: string): Obj {
  const customer = customerById(db, customerId);
  if (!customer.line_ids.includes(lineId)) fail(`Line ${lineId} not found for customer ${customerId}`);
  return lineById(db, lineId);
}
export const billsAwaitingPayment = (db: Obj, customer: Obj): Obj[] => customer.bill_ids.map((id: string) => billById(db, id)).filter((b: Obj) => b.status === "Awaiting Payment");
export const setBillToPaid = (db: Obj, billId: string) => void (billById(db, billId).status = "Paid");

/** Python's str() of a float value (the model's number arguments are JSON numbers; a float field's value is a float). */
const floatStr = (x: number) => floatRepr(x);
/** str() of a float parameter's argument: an int when the model wrote an integer literal, else the float it is typed as. */
const argStr = (args: Obj, key: string) => (isIntegerLiteral(args, key) && Number.isInteger(args[key]) ? String(args[key]) : floatRepr(args[key]));
function requireNumber(value: unknown, op: string): number {
  if (typeof value === "number") return value;
  const type = value === null ? "NoneType" : typeof value === "string" ? "str" : typeof value === "boolean" ? "bool" : Array.isArray(value) ? "list" : "dict";
  throw new TypeError(`'${op}' not supported between instances of '${type}' and 'int'`);
}

function applyOneTimeCharge(db: Obj, customerId: string, amount: number, description: string): void {
  const customer = customerById(db, customerId);
  let draft = customer.bill_ids.map((id: string) => billById(db, id)).find((b: Obj) => b.status === "Draft");
  if (!draft) {
    const nextMonth = firstOfNextMonth(TELECOM_TODAY);
    const id = `B${randomUUID().replaceAll("-", "").slice(0, 8)}`;
    draft = { bill_id: id, customer_id: customerId, period_start: nextMonth, period_end: addDays(firstOfNextMonth(nextMonth), -1), issue_date: nextMonth, total_due: 0, due_date: addDays(nextMonth, 14), line_items: [], status: "Draft" };
    db.bills.push(draft);
    customer.bill_ids.push(id);
  }
  draft.line_items.push({ description, amount, date: TELECOM_TODAY, item_type: amount < 0 ? "Credit" : "Charge" });
  draft.total_due += amount;
}

const tool = (name: string, kind: Tau2Tool["kind"], run: Tau2Tool["run"], output?: Shape): Tau2Tool => ({ name, kind, schema: TELECOM_AGENT_TOOL_SCHEMAS[name]!, run, output });
const s = (v: unknown) => String(v);

const tools: Tau2Tool[] = [
  tool("get_customer_by_phone", "read", (db, a) => customerByPhone(db, s(a.phone_number)), customerShape),
  tool("get_customer_by_id", "read", (db, a) => customerById(db, s(a.customer_id)), customerShape),
  tool("get_customer_by_name", "read", (db, a) => db.customers.filter((c: Obj) => c.full_name.toLowerCase() === s(a.full_name).toLowerCase() && c.date_of_birth === a.dob), { list: customerShape }),
  tool("get_details_by_id", "read", (db, a) => {
    const id = s(a.id);
    if (id.startsWith("L")) return model(lineById(db, id), lineShape);
    if (id.startsWith("D")) return model(deviceById(db, id), deviceShape);
    if (id.startsWith("B")) return model(billById(db, id), billShape);
    if (id.startsWith("C")) return model(customerById(db, id), customerShape);
    if (id.startsWith("P")) return model(planById(db, id), planShape);
    return fail(`Unknown ID format or type: ${id}`);
  }),
  tool("suspend_line", "write", (db, a) => {
    const line = targetLine(db, s(a.customer_id), s(a.line_id));
    if (line.status !== "Active") fail("Line must be active to suspend");
    line.status = "Suspended";
    line.suspension_start_date = TELECOM_TODAY;
    return { message: "Line suspended successfully. $5/month holding fee will apply.", line: model(line, lineShape) };
  }),
  tool("resume_line", "write", (db, a) => {
    const line = targetLine(db, s(a.customer_id), s(a.line_id));
    if (line.status !== "Suspended" && line.status !== "Pending Activation") fail("Line must be suspended to resume");
    line.status = "Active";
    line.suspension_start_date = null;
    return { message: "Line resumed successfully", line: model(line, lineShape) };
  }),
  tool(
    "get_bills_for_customer",
    "read",
    (db, a) => {
      const customer = customerById(db, s(a.customer_id));
      const bills = customer.bill_ids.map((id: string) => billById(db, id));
      // sorted(..., reverse=True) is stable: equal dates keep their order.
      const sorted = [...bills].sort((x: Obj, y: Obj) => (x.issue_date < y.issue_date ? 1 : x.issue_date > y.issue_date ? -1 : 0));
      return sorted.slice(0, a.limit === undefined ? 12 : a.limit);
    },
    { list: billShape },
  ),
  tool("send_payment_request", "write", (db, a) => {
    const customer = customerById(db, s(a.customer_id));
    if (billsAwaitingPayment(db, customer).length !== 0) fail("A bill is already awaiting payment for this customer");
    if (!customer.bill_ids.includes(a.bill_id)) fail(`Bill ${a.bill_id} not found for customer ${a.customer_id}`);
    const bill = billById(db, s(a.bill_id));
    bill.status = "Awaiting Payment";
    return `Payment request sent to the customer for bill ${bill.bill_id}`;
  }),
  tool("get_data_usage", "read", (db, a) => {
    const line = targetLine(db, s(a.customer_id), s(a.line_id));
    const plan = planById(db, line.plan_id);
    return { line_id: a.line_id, data_used_gb: floatStr(line.data_used_gb), data_limit_gb: floatStr(plan.data_limit_gb), data_refueling_gb: floatStr(line.data_refueling_gb), cycle_end_date: addDays(firstOfNextMonth(TELECOM_TODAY), -1) };
  }),
  tool("enable_roaming", "write", (db, a) => {
    const line = targetLine(db, s(a.customer_id), s(a.line_id));
    if (line.roaming_enabled) return "Roaming was already enabled";
    line.roaming_enabled = true;
    return "Roaming enabled successfully";
  }),
  tool("disable_roaming", "write", (db, a) => {
    const line = targetLine(db, s(a.customer_id), s(a.line_id));
    if (!line.roaming_enabled) return "Roaming was already disabled";
    line.roaming_enabled = false;
    return "Roaming disabled successfully";
  }),
  tool("transfer_to_human_agents", "generic", () => "Transfer successful"),
  tool("refuel_data", "write", (db, a) => {
    const line = targetLine(db, s(a.customer_id), s(a.line_id));
    const gb = requireNumber(a.gb_amount, "<=");
    if (gb <= 0) fail("Refuel amount must be positive");
    const plan = planById(db, line.plan_id);
    const charge = gb * plan.data_refueling_price_per_gb;
    line.data_refueling_gb += gb;
    applyOneTimeCharge(db, s(a.customer_id), charge, `Data refueling: ${argStr(a, "gb_amount")} GB at $${floatStr(plan.data_refueling_price_per_gb)}/GB`);
    return { message: `Successfully added ${argStr(a, "gb_amount")} GB of data for line ${a.line_id} for $${charge.toFixed(2)}`, new_data_refueling_gb: floatStr(line.data_refueling_gb), charge: floatStr(charge) };
  }),
];

/** The toolkit's methods a task may call by name (getattr(toolkit, func_name)): its tools and these. */
const functions: Record<string, (db: Obj, a: Obj) => unknown> = {
  ...Object.fromEntries(tools.map((t) => [t.name, t.run])),
  get_available_plan_ids: (db) => db.plans.map((p: Obj) => p.plan_id),
  set_data_usage(db, a) {
    targetLine(db, s(a.customer_id), s(a.line_id)).data_used_gb = a.data_used_gb;
    return `Data usage set to ${argStr(a, "data_used_gb")} GB for line ${a.line_id}`;
  },
  suspend_line_for_overdue_bill(db, a) {
    const line = lineById(db, s(a.line_id));
    if (line.status !== "Active") fail("Line must be active to suspend for unpaid bill");
    const plan = planById(db, line.plan_id);
    const amount = plan.price_per_month;
    if (amount <= 0) fail("Amount must be positive for overdue bill");
    const customer = customerById(db, s(a.customer_id));
    if (customer.bill_ids.some((id: string) => billById(db, id).status === "Overdue")) fail("Customer already has an overdue bill");
    const lastDayOfLastMonth = addDays(firstOfMonth(TELECOM_TODAY), -1);
    const firstDayOfLastMonth = firstOfMonth(lastDayOfLastMonth);
    db.bills.push({
      bill_id: a.new_bill_id, customer_id: a.customer_id, period_start: firstDayOfLastMonth, period_end: lastDayOfLastMonth, issue_date: firstDayOfLastMonth, total_due: 0 + amount,
      due_date: addDays(firstDayOfLastMonth, 14), line_items: [{ description: `Charge for line ${line.line_id}`, amount, date: TELECOM_TODAY, item_type: amount > 0 ? "Charge" : "Credit" }], status: "Overdue",
    });
    customer.bill_ids.push(a.new_bill_id);
    line.status = "Suspended";
    line.suspension_start_date = TELECOM_TODAY;
    if (a.contract_ended) line.contract_end_date = lastDayOfLastMonth;
    return `Line ${a.line_id} suspended for unpaid bill ${a.new_bill_id}. Contract ended: ${a.contract_ended ? "True" : "False"}`;
  },
  assert_data_refueling_amount: (db, a) => Math.abs(targetLine(db, s(a.customer_id), s(a.line_id)).data_refueling_gb - a.expected_amount) < 1e-6,
  assert_line_status: (db, a) => targetLine(db, s(a.customer_id), s(a.line_id)).status === a.expected_status,
  assert_overdue_bill_exists(db, a) {
    const customer = customerById(db, s(a.customer_id));
    if (!customer.bill_ids.includes(a.overdue_bill_id)) fail(`Overdue bill ${a.overdue_bill_id} not found`);
    if (billById(db, s(a.overdue_bill_id)).status !== "Overdue") fail(`Overdue bill ${a.overdue_bill_id} is not overdue`);
    return true;
  },
  assert_no_overdue_bill(db, a) {
    const bill = db.bills.find((b: Obj) => b.bill_id === a.overdue_bill_id);
    return bill === undefined || bill.status === "Paid";
  },
};

/**
 * TelecomEnvironment.sync_tools: the user's phone follows the line (active, roaming allowed, data used up), a paid
 * payment request pays its bill, and a bill awaiting payment becomes the phone's payment request.
 */
function sync(db: Obj, userDb: Obj): void {
  const surroundings = userDb.surroundings;
  const phone = surroundings.phone_number;
  if (phone == null) return;
  const line = db.lines.find((l: Obj) => l.phone_number === phone);
  if (!line) throw new Error(`Wrong scenario, line not found for phone number: ${phone}`);
  surroundings.line_active = line.status === "Active";
  surroundings.roaming_allowed = Boolean(line.roaming_enabled);
  const plan = db.plans.find((p: Obj) => p.plan_id === line.plan_id);
  if (!plan) throw new Error(`Wrong scenario, invalid plan id (${line.plan_id}) for the phone number ${phone}`);
  surroundings.mobile_data_usage_exceeded = line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb;
  if (surroundings.payment_request?.paid) {
    setBillToPaid(db, surroundings.payment_request.bill_id);
    surroundings.payment_request = null;
  }
  if (surroundings.payment_request == null) {
    const bills = billsAwaitingPayment(db, customerByPhone(db, phone));
    if (bills.length !== 0) surroundings.payment_request = { bill_id: bills[0]!.bill_id, amount_due: bills[0]!.total_due, paid: false };
  }
}

const TELECOM_DIR = "data/tau2/domains/telecom";
const telecomDomain = (name: string, techSupportPolicy: string): Tau2Domain => ({
  name,
  className: "TelecomTools",
  dbPath: `${TELECOM_DIR}/db.toml`,
  loadDb: loadTelecomDb,
  policyPaths: [`${TELECOM_DIR}/main_policy.md`, `${TELECOM_DIR}/${techSupportPolicy}`],
  // get_environment: "<main_policy>\n…\n</main_policy>\n<tech_support_policy>\n…\n</tech_support_policy>"
  joinPolicies: ([main, techSupport]) => `<main_policy>\n${main}\n</main_policy>\n<tech_support_policy>\n${techSupport}\n</tech_support_policy>`,
  tools,
  functions,
  user: { ...telecomUserSide, sync },
});

/** τ²-bench's `telecom` (the tech-support manual) and `telecom-workflow` (the workflow policy). */
export const telecom = telecomDomain("telecom", "tech_support_manual.md");
export const telecomWorkflow = telecomDomain("telecom-workflow", "tech_support_workflow.md");
