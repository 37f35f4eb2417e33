// τ²-bench's retail domain (src/tau2/domains/retail/tools.py): the agent's 15 tools over the retail DB, rule by rule,
// τ²-bench's quirks included (modify_pending_order_items gives every modified item the last new variant's price and
// options; a pending order's status is tested by substring for address/payment changes, exactly for items).
import type { Tau2Domain, Tau2Tool } from "./domain.ts";
import { calculateTool, fail, transferTool } from "./airline.ts";
import type { Shape } from "./model-dump.ts";

// The retail data model (src/tau2/domains/retail/data_model.py), as shapes for the tool messages.
const address: Shape = { model: [["address1", "str"], ["address2", "str"], ["city", "str"], ["country", "str"], ["state", "str"], ["zip", "str"]] };
const variantShape: Shape = { model: [["item_id", "str"], ["options", { dict: "str" }], ["available", "bool"], ["price", "float"]] };
const productShape: Shape = { model: [["name", "str"], ["product_id", "str"], ["variants", { dict: variantShape }]] };
const paymentMethodShape: Shape = {
  union: (m) =>
    m.source === "gift_card" ? { model: [["source", "str"], ["id", "str"], ["balance", "float"]] } : m.source === "credit_card" ? { model: [["source", "str"], ["id", "str"], ["brand", "str"], ["last_four", "str"]] } : { model: [["source", "str"], ["id", "str"]] },
};
const userShape: Shape = { model: [["user_id", "str"], ["name", { model: [["first_name", "str"], ["last_name", "str"]] }], ["address", address], ["email", "str"], ["payment_methods", { dict: paymentMethodShape }], ["orders", { list: "str" }]] };
const orderShape: Shape = {
  model: [
    ["order_id", "str"], ["user_id", "str"], ["address", address],
    ["items", { list: { model: [["name", "str"], ["product_id", "str"], ["item_id", "str"], ["price", "float"], ["options", { dict: "str" }]] } }],
    ["status", "str"],
    ["fulfillments", { list: { model: [["tracking_id", { list: "str" }], ["item_ids", { list: "str" }]] } }],
    ["payment_history", { list: { model: [["transaction_type", "str"], ["amount", "float"], ["payment_method_id", "str"]] } }],
    ["cancel_reason", { opt: "str" }], ["exchange_items", { opt: { list: "str" } }], ["exchange_new_items", { opt: { list: "str" } }],
    ["exchange_payment_method_id", { opt: "str" }], ["exchange_price_difference", { opt: "float" }], ["return_items", { opt: { list: "str" } }], ["return_payment_method_id", { opt: "str" }],
  ],
};


type Obj = Record<string, any>;
/** Python's round(x, 2) for the values these tools see. */
const round2 = (x: number) => Math.round(x * 100) / 100;
const strList = (v: unknown, what: string): string[] => (Array.isArray(v) && v.every((s) => typeof s === "string") ? v : fail(`${what} must be a list of strings`));
const count = (xs: string[], x: string) => xs.filter((y) => y === x).length;

const order = (db: Obj, id: string): Obj => db.orders[id] ?? fail("Order not found");
const user = (db: Obj, id: string): Obj => db.users[id] ?? fail("User not found");
const product = (db: Obj, id: string): Obj => db.products[id] ?? fail("Product not found");
function item(db: Obj, id: string): Obj {
  for (const p of Object.values(db.products) as Obj[]) if (id in p.variants) return p.variants[id];
  return fail("Item not found");
}
const variant = (db: Obj, productId: string, variantId: string): Obj => product(db, productId).variants[variantId] ?? fail("Variant not found");
const paymentMethod = (db: Obj, userId: string, id: string): Obj => user(db, userId).payment_methods[id] ?? fail("Payment method not found");
const isGiftCard = (m: Obj) => m.source === "gift_card";

const str = { type: "string" };
const strs = { type: "array", items: str };
const fn = (name: string, description: string, properties: Obj, required: string[]) => ({ type: "function", function: { name, description, parameters: { type: "object", properties, required } } });
const addressProps = { address1: str, address2: str, city: str, state: str, country: str, zip: str };
const addressOf = (a: Obj) => ({ address1: String(a.address1), address2: String(a.address2), city: String(a.city), country: String(a.country), state: String(a.state), zip: String(a.zip) });

function checkItems(o: Obj, itemIds: string[], newItemIds: string[] | undefined, notFound: (id: string) => string, mismatch: string) {
  const all = o.items.map((i: Obj) => i.item_id);
  for (const id of itemIds) if (count(itemIds, id) > count(all, id)) fail(notFound(id));
  if (newItemIds && itemIds.length !== newItemIds.length) fail(mismatch);
}

const OUTPUTS: Record<string, Shape | undefined> = {
  cancel_pending_order: orderShape, exchange_delivered_order_items: orderShape, get_order_details: orderShape, modify_pending_order_address: orderShape,
  modify_pending_order_items: orderShape, modify_pending_order_payment: orderShape, return_delivered_order_items: orderShape,
  get_product_details: productShape, get_item_details: variantShape, get_user_details: userShape, modify_user_address: userShape,
};

const tools: Tau2Tool[] = ([
  calculateTool,
  {
    name: "cancel_pending_order",
    kind: "write",
    schema: fn("cancel_pending_order", "Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled.", { order_id: str, reason: { type: "string", enum: ["no longer needed", "ordered by mistake"] } }, ["order_id", "reason"]),
    run(db, a) {
      const o = order(db, String(a.order_id));
      if (o.status !== "pending") fail("Non-pending order cannot be cancelled");
      if (!["no longer needed", "ordered by mistake"].includes(a.reason)) fail("Invalid reason");
      const refunds: Obj[] = [];
      for (const p of o.payment_history) {
        refunds.push({ transaction_type: "refund", amount: p.amount, payment_method_id: p.payment_method_id });
        const m = paymentMethod(db, user(db, o.user_id).user_id, p.payment_method_id);
        if (isGiftCard(m)) m.balance = round2(m.balance + p.amount);
      }
      o.status = "cancelled";
      o.cancel_reason = a.reason;
      o.payment_history.push(...refunds);
      return o;
    },
  },
  {
    name: "exchange_delivered_order_items",
    kind: "write",
    schema: fn("exchange_delivered_order_items", "Exchange items in a delivered order to new items of the same product type.", { order_id: str, item_ids: strs, new_item_ids: strs, payment_method_id: str }, ["order_id", "item_ids", "new_item_ids", "payment_method_id"]),
    run(db, a) {
      const o = order(db, String(a.order_id));
      if (o.status !== "delivered") fail("Non-delivered order cannot be exchanged");
      const ids = strList(a.item_ids, "item_ids");
      const newIds = strList(a.new_item_ids, "new_item_ids");
      checkItems(o, ids, newIds, (id) => `Number of ${id} not found.`, "The number of items to be exchanged should match.");
      let diff = 0;
      ids.forEach((id, k) => {
        const it = o.items.find((i: Obj) => i.item_id === id) ?? fail(`Item ${id} not found`);
        const v = variant(db, it.product_id, newIds[k]!);
        if (!v.available) fail(`New item ${newIds[k]} not found or available`);
        diff += v.price - it.price;
      });
      diff = round2(diff);
      const m = paymentMethod(db, o.user_id, String(a.payment_method_id));
      if (isGiftCard(m) && m.balance < diff) fail("Insufficient gift card balance to pay for the price difference");
      o.status = "exchange requested";
      o.exchange_items = [...ids].sort();
      o.exchange_new_items = [...newIds].sort();
      o.exchange_payment_method_id = a.payment_method_id;
      o.exchange_price_difference = diff;
      return o;
    },
  },
  {
    name: "find_user_id_by_name_zip",
    kind: "read",
    schema: fn("find_user_id_by_name_zip", "Find user id by first name, last name, and zip code.", { first_name: str, last_name: str, zip: str }, ["first_name", "last_name", "zip"]),
    run(db, a) {
      for (const [id, u] of Object.entries(db.users) as [string, Obj][]) {
        if (u.name.first_name.toLowerCase() === String(a.first_name).toLowerCase() && u.name.last_name.toLowerCase() === String(a.last_name).toLowerCase() && u.address.zip === a.zip) return id;
      }
      return fail("User not found");
    },
  },
  {
    name: "find_user_id_by_email",
    kind: "read",
    schema: fn("find_user_id_by_email", "Find user id by email.", { email: str }, ["email"]),
    run(db, a) {
      for (const [id, u] of Object.entries(db.users) as [string, Obj][]) if (u.email.toLowerCase() === String(a.email).toLowerCase()) return id;
      return fail("User not found");
    },
  },
  { name: "get_order_details", kind: "read", schema: fn("get_order_details", "Get the status and details of an order.", { order_id: str }, ["order_id"]), run: (db, a) => order(db, String(a.order_id)) },
  { name: "get_product_details", kind: "read", schema: fn("get_product_details", "Get the inventory details of a product.", { product_id: str }, ["product_id"]), run: (db, a) => product(db, String(a.product_id)) },
  { name: "get_item_details", kind: "read", schema: fn("get_item_details", "Get the inventory details of an item.", { item_id: str }, ["item_id"]), run: (db, a) => item(db, String(a.item_id)) },
  { name: "get_user_details", kind: "read", schema: fn("get_user_details", "Get the details of a user, including their orders.", { user_id: str }, ["user_id"]), run: (db, a) => user(db, String(a.user_id)) },
  {
    name: "list_all_product_types",
    kind: "read",
    schema: fn("list_all_product_types", "List the name and product id of all product types.", {}, []),
    run(db) {
      const byName: Obj = {};
      for (const p of Object.values(db.products) as Obj[]) byName[p.name] = p.product_id;
      // json.dumps(..., sort_keys=True): Python's separators, keys sorted by code point.
      return `{${Object.keys(byName).sort().map((k) => `${JSON.stringify(k)}: ${JSON.stringify(byName[k])}`).join(", ")}}`;
    },
  },
  {
    name: "modify_pending_order_address",
    kind: "write",
    schema: fn("modify_pending_order_address", "Modify the shipping address of a pending order.", { order_id: str, ...addressProps }, ["order_id", ...Object.keys(addressProps)]),
    run(db, a) {
      const o = order(db, String(a.order_id));
      if (!String(o.status).includes("pending")) fail("Non-pending order cannot be modified");
      o.address = addressOf(a);
      return o;
    },
  },
  {
    name: "modify_pending_order_items",
    kind: "write",
    schema: fn("modify_pending_order_items", "Modify items in a pending order to new items of the same product type.", { order_id: str, item_ids: strs, new_item_ids: strs, payment_method_id: str }, ["order_id", "item_ids", "new_item_ids", "payment_method_id"]),
    run(db, a) {
      const o = order(db, String(a.order_id));
      if (o.status !== "pending") fail("Non-pending order cannot be modified");
      const ids = strList(a.item_ids, "item_ids");
      const newIds = strList(a.new_item_ids, "new_item_ids");
      checkItems(o, ids, newIds, (id) => `${id} not found`, "The number of items to be exchanged should match");
      let diff = 0;
      let v: Obj | undefined;
      ids.forEach((id, k) => {
        if (id === newIds[k]) fail("The new item id should be different from the old item id");
        const it = o.items.find((i: Obj) => i.item_id === id) ?? fail(`Item ${id} not found`);
        v = variant(db, it.product_id, newIds[k]!);
        if (!v.available) fail(`New item ${newIds[k]} not found or available`);
        diff += v.price - it.price;
      });
      const m = paymentMethod(db, o.user_id, String(a.payment_method_id));
      if (isGiftCard(m) && m.balance < diff) fail("Insufficient gift card balance to pay for the new item");
      o.payment_history.push({ transaction_type: diff > 0 ? "payment" : "refund", amount: Math.abs(diff), payment_method_id: a.payment_method_id });
      if (isGiftCard(m)) m.balance = round2(m.balance - diff);
      ids.forEach((id, k) => {
        const it = o.items.find((i: Obj) => i.item_id === id) ?? fail(`Item ${id} not found`);
        it.item_id = newIds[k];
        it.price = v!.price;
        it.options = v!.options;
      });
      o.status = "pending (item modified)";
      return o;
    },
  },
  {
    name: "modify_pending_order_payment",
    kind: "write",
    schema: fn("modify_pending_order_payment", "Modify the payment method of a pending order.", { order_id: str, payment_method_id: str }, ["order_id", "payment_method_id"]),
    run(db, a) {
      const o = order(db, String(a.order_id));
      if (!String(o.status).includes("pending")) fail("Non-pending order cannot be modified");
      const m = paymentMethod(db, o.user_id, String(a.payment_method_id));
      if (o.payment_history.length !== 1 || o.payment_history[0].transaction_type !== "payment") fail("There should be exactly one payment for a pending order");
      if (o.payment_history[0].payment_method_id === a.payment_method_id) fail("The new payment method should be different from the current one");
      const amount = o.payment_history[0].amount;
      if (isGiftCard(m) && m.balance < amount) fail("Insufficient gift card balance to pay for the order");
      o.payment_history.push({ transaction_type: "payment", amount, payment_method_id: a.payment_method_id }, { transaction_type: "refund", amount, payment_method_id: o.payment_history[0].payment_method_id });
      if (isGiftCard(m)) m.balance = round2(m.balance - amount);
      const old = paymentMethod(db, o.user_id, o.payment_history[0].payment_method_id);
      if (isGiftCard(old)) old.balance = round2(old.balance + amount);
      return o;
    },
  },
  {
    name: "modify_user_address",
    kind: "write",
    schema: fn("modify_user_address", "Modify the default address of a user.", { user_id: str, ...addressProps }, ["user_id", ...Object.keys(addressProps)]),
    run(db, a) {
      const u = user(db, String(a.user_id));
      u.address = addressOf(a);
      return u;
    },
  },
  {
    name: "return_delivered_order_items",
    kind: "write",
    schema: fn("return_delivered_order_items", "Return some items of a delivered order.", { order_id: str, item_ids: strs, payment_method_id: str }, ["order_id", "item_ids", "payment_method_id"]),
    run(db, a) {
      const o = order(db, String(a.order_id));
      if (o.status !== "delivered") fail("Non-delivered order cannot be returned");
      const m = paymentMethod(db, user(db, o.user_id).user_id, String(a.payment_method_id));
      if (!isGiftCard(m) && a.payment_method_id !== o.payment_history[0].payment_method_id) fail("Payment method should be the original payment method");
      const ids = strList(a.item_ids, "item_ids");
      checkItems(o, ids, undefined, () => "Some item not found", "");
      o.status = "return requested";
      o.return_items = [...ids].sort();
      o.return_payment_method_id = a.payment_method_id;
      return o;
    },
  },
  transferTool,
] as Tau2Tool[]).map((t) => ({ ...t, output: OUTPUTS[t.name] }));


export const retail: Tau2Domain = {
  name: "retail",
  className: "RetailTools",
  dbPath: "data/tau2/domains/retail/db.json",
  policyPaths: ["data/tau2/domains/retail/policy.md"],
  tools,
};
