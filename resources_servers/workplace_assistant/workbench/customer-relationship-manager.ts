// The CRM toolkit (NeMo Gym's CustomerRelationshipManagerTool). Statuses and product interests are fixed sets
// (case-sensitive) when updated; emails are lower-cased; a new customer gets the greatest id + 1, zero-padded, and
// `notes` defaults to "" (not NaN, as a CSV blank reads).
import { containsMatch, intArg, isStr, lower, paginate, pyEquals, pyInt, requireBooleanMask } from "./python.ts";
import { jsonTypeName, jsonTruthy } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";
import { appendRows, columnContains, columnMax, filterRows, records, updateRows, type Row, type Table } from "./table.ts";
import { integer, text, workbenchTool, type Kwargs } from "./tool-spec.ts";

const STATUSES = ["Qualified", "Won", "Lost", "Lead", "Proposal"];
const PRODUCTS = ["Software", "Hardware", "Services", "Consulting", "Training"];
const oneOf = (options: string[], value: unknown) => options.some((option) => pyEquals(option, value));

/** `df[column] >= bound` on an object column of date strings: NaN rows drop out; a non-str bound is a TypeError. */
function compareCell(cell: unknown, bound: unknown, op: ">=" | "<="): boolean {
  if (cell === null) return false;
  if (!isStr(cell) || !isStr(bound)) throw new PyException("TypeError", `'${op}' not supported between instances of '${jsonTypeName(cell)}' and '${jsonTypeName(bound)}'`);
  return op === ">=" ? cell >= bound : cell <= bound;
}

export class CustomerRelationshipManagerTool {
  constructor(public customers: Table) {}

  searchCustomers(kw: Kwargs): unknown {
    const {
      customer_name = null,
      customer_email = null,
      product_interest = null,
      status = null,
      assigned_to_email = null,
      last_contact_date_min = null,
      last_contact_date_max = null,
      follow_up_by_min = null,
      follow_up_by_max = null,
      page = 1,
      page_size = 5,
    } = kw;
    const filters = [customer_name, customer_email, product_interest, status, assigned_to_email, last_contact_date_min, last_contact_date_max, follow_up_by_min, follow_up_by_max];
    if (!filters.some(jsonTruthy)) return "No search parameters provided. Please provide at least one parameter.";
    let customers: readonly Row[] = this.customers.rows;
    const contains = (column: string, pattern: unknown) => {
      if (!jsonTruthy(pattern)) return;
      const mask = requireBooleanMask(customers.map((row) => containsMatch(row[column], pattern)));
      customers = customers.filter((_, i) => mask[i]);
    };
    const bound = (column: string, value: unknown, op: ">=" | "<=") => {
      if (jsonTruthy(value)) customers = customers.filter((row) => compareCell(row[column], value, op));
    };
    contains("customer_name", customer_name);
    contains("customer_email", customer_email);
    contains("product_interest", product_interest);
    contains("status", status);
    contains("assigned_to_email", assigned_to_email);
    bound("last_contact_date", last_contact_date_min, ">=");
    bound("last_contact_date", last_contact_date_max, "<=");
    bound("follow_up_by", follow_up_by_min, ">=");
    bound("follow_up_by", follow_up_by_max, "<=");
    const pageSize = intArg(page_size);
    const { items, page: current, totalPages } = paginate([...customers], intArg(page), pageSize);
    if (customers.length === 0) return "No customers found.";
    return { customers: records(items), pagination: { total_customers: customers.length, page: current, page_size: pageSize, total_pages: totalPages } };
  }

  updateCustomer({ customer_id = null, field = null, new_value = null }: Kwargs): string {
    if (!jsonTruthy(customer_id) || !jsonTruthy(field) || !jsonTruthy(new_value)) return "Customer ID, field, or new value not provided.";
    if (field === "status" && !oneOf(STATUSES, new_value)) return "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'";
    if (field === "product_interest" && !oneOf(PRODUCTS, new_value)) {
      return "Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'";
    }
    const value = field === "customer_email" || field === "assigned_to_email" ? lower(new_value) : new_value;
    if (!columnContains(this.customers, "customer_id", customer_id)) return "Customer not found.";
    if (!isStr(field) || !this.customers.columns.includes(field)) {
      return "Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'";
    }
    this.customers = updateRows(this.customers, (row) => pyEquals(row.customer_id, customer_id), field, value);
    return "Customer updated successfully.";
  }

  addCustomer({
    customer_name = null,
    assigned_to_email = null,
    status = null,
    customer_email = null,
    customer_phone = null,
    last_contact_date = null,
    product_interest = null,
    notes = "",
    follow_up_by = null,
  }: Kwargs): string {
    if (![customer_name, assigned_to_email, status].every(jsonTruthy)) return "Please provide all required fields: customer_name, assigned_to_email, status.";
    const assignee = lower(assigned_to_email);
    const email = jsonTruthy(customer_email) ? lower(customer_email) : customer_email;
    const customerId = String(pyInt(columnMax(this.customers, "customer_id") ?? Number.NaN) + 1).padStart(8, "0");
    this.customers = appendRows(
      this.customers,
      [{ customer_id: customerId, customer_name, customer_email: email, customer_phone, last_contact_date, product_interest, status, assigned_to_email: assignee, notes, follow_up_by }],
      true,
    );
    return customerId;
  }

  deleteCustomer({ customer_id = null }: Kwargs): string {
    if (!jsonTruthy(customer_id)) return "Customer ID not provided.";
    if (!columnContains(this.customers, "customer_id", customer_id)) return "Customer not found.";
    this.customers = filterRows(this.customers, (row) => !pyEquals(row.customer_id, customer_id));
    return "Customer deleted successfully.";
  }
}

export const customerRelationshipManagerTools = {
  customer_relationship_manager_search_customers: workbenchTool<CustomerRelationshipManagerTool>({
    description: "Searches for customers based on the given parameters with pagination support.",
    input: {
      customer_name: text("Name of the customer").optional(),
      customer_email: text("Email address of the customer").optional(),
      product_interest: text("Product interest of the customer").optional(),
      status: text("Current status of the customer").optional(),
      assigned_to_email: text("Email address of the person assigned to the customer").optional(),
      last_contact_date_min: text("Minimum last contact date. Format: YYYY-MM-DD").optional(),
      last_contact_date_max: text("Maximum last contact date. Format: YYYY-MM-DD").optional(),
      follow_up_by_min: text("Minimum follow up date. Format: YYYY-MM-DD").optional(),
      follow_up_by_max: text("Maximum follow up date. Format: YYYY-MM-DD").optional(),
      page: integer("Page number of results to return").optional(),
      page_size: integer("Number of customers per page").optional(),
    },
    python: "CustomerRelationshipManagerTool.search_customers",
    run: (kit, kw) => kit.searchCustomers(kw),
  }),
  customer_relationship_manager_update_customer: workbenchTool<CustomerRelationshipManagerTool>({
    description: "Updates a customer record by ID.",
    input: {
      customer_id: text("ID of the customer"),
      field: text(
        "Field to update. Available fields are: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'",
      ),
      new_value: text("New value for the field"),
    },
    python: "CustomerRelationshipManagerTool.update_customer",
    writes: true,
    run: (kit, kw) => kit.updateCustomer(kw),
  }),
  customer_relationship_manager_add_customer: workbenchTool<CustomerRelationshipManagerTool>({
    description: "Adds a new customer record.",
    input: {
      customer_name: text("Name of the customer"),
      assigned_to_email: text("Email address of the person assigned to the customer"),
      status: text("Current status of the customer. One of: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"),
      customer_email: text("Email address of the customer").optional(),
      customer_phone: text("Phone number of the customer").optional(),
      last_contact_date: text("The last date the customer was contacted. Format: YYYY-MM-DD").optional(),
      product_interest: text("Product interest of the customer. One of: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'").optional(),
      notes: text("Notes about the customer").optional(),
      follow_up_by: text("Date for the next follow up. Format: YYYY-MM-DD").optional(),
    },
    python: "CustomerRelationshipManagerTool.add_customer",
    writes: true,
    run: (kit, kw) => kit.addCustomer(kw),
  }),
  customer_relationship_manager_delete_customer: workbenchTool<CustomerRelationshipManagerTool>({
    description: "Deletes a customer record by ID.",
    input: { customer_id: text("ID of the customer") },
    python: "CustomerRelationshipManagerTool.delete_customer",
    writes: true,
    run: (kit, kw) => kit.deleteCustomer(kw),
  }),
};
