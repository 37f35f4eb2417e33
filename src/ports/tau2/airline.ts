// τ²-bench's airline domain (src/tau2/domains/airline/tools.py): the agent's 14 tools over the flight DB, ported rule
// by rule. A tool that τ²-bench's pydantic models would reject (an unknown or missing argument field) throws, which
// the environment turns into an "Error: …" tool message, as τ²-bench does.
import type { Tau2Domain, Tau2Tool } from "./domain.ts";
import type { Shape } from "./model-dump.ts";

// The airline data model (src/tau2/domains/airline/data_model.py), as shapes for the tool messages.
const seats: Shape = { dict: "int" };
const passengerShape: Shape = { model: [["first_name", "str"], ["last_name", "str"], ["dob", "str"]] };
const reservationShape: Shape = {
  model: [
    ["reservation_id", "str"], ["user_id", "str"], ["origin", "str"], ["destination", "str"], ["flight_type", "str"], ["cabin", "str"],
    ["flights", { list: { model: [["flight_number", "str"], ["origin", "str"], ["destination", "str"], ["date", "str"], ["price", "int"]] } }],
    ["passengers", { list: passengerShape }], ["payment_history", { list: { model: [["payment_id", "str"], ["amount", "int"]] } }],
    ["created_at", "str"], ["total_baggages", "int"], ["nonfree_baggages", "int"], ["insurance", "str"], ["status", { opt: "str" }],
  ],
};
const airlinePaymentMethod: Shape = {
  union: (m) => (m.source === "credit_card" ? { model: [["source", "str"], ["id", "str"], ["brand", "str"], ["last_four", "str"]] } : { model: [["source", "str"], ["id", "str"], ["amount", "float"]] }),
};
const userShape: Shape = {
  model: [
    ["user_id", "str"], ["name", { model: [["first_name", "str"], ["last_name", "str"]] }],
    ["address", { model: [["address1", "str"], ["address2", { opt: "str" }], ["city", "str"], ["country", "str"], ["state", "str"], ["zip", "str"]] }],
    ["email", "str"], ["dob", "str"], ["payment_methods", { dict: airlinePaymentMethod }], ["saved_passengers", { list: passengerShape }], ["membership", "str"], ["reservations", { list: "str" }],
  ],
};
const directFlight: Shape = { model: [["flight_number", "str"], ["origin", "str"], ["destination", "str"], ["status", "str"], ["scheduled_departure_time_est", "str"], ["scheduled_arrival_time_est", "str"], ["date", { opt: "str" }], ["available_seats", seats], ["prices", seats]] };
const OUTPUTS: Record<string, Shape | undefined> = {
  book_reservation: reservationShape, cancel_reservation: reservationShape, get_reservation_details: reservationShape, update_reservation_baggages: reservationShape,
  update_reservation_flights: reservationShape, update_reservation_passengers: reservationShape, get_user_details: userShape,
  list_all_airports: { list: { model: [["iata", "str"], ["city", "str"]] } }, search_direct_flight: { list: directFlight }, search_onestop_flight: { list: { list: directFlight } },
};


type Obj = Record<string, any>;
export const fail = (message: string): never => {
  throw new Error(message);
};

function strictObject(value: unknown, fields: readonly string[], what: string): Obj {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`${what} must be an object`);
  const obj = value as Obj;
  for (const key of Object.keys(obj)) if (!fields.includes(key)) fail(`${what}: extra field ${key} not permitted`);
  for (const key of fields) if (obj[key] === undefined) fail(`${what}: field ${key} required`);
  return obj;
}
const passengerOf = (p: unknown): Obj => {
  const o = strictObject(p, ["first_name", "last_name", "dob"], "Passenger");
  return { first_name: String(o.first_name), last_name: String(o.last_name), dob: String(o.dob) };
};
const flightInfoOf = (f: unknown): Obj => {
  const o = strictObject(f, ["flight_number", "date"], "FlightInfo");
  return { flight_number: String(o.flight_number), date: String(o.date) };
};
const paymentOf = (p: unknown): Obj => {
  const o = strictObject(p, ["payment_id", "amount"], "Payment");
  if (typeof o.amount !== "number" || !Number.isInteger(o.amount)) fail("Payment: amount must be an integer");
  return { payment_id: String(o.payment_id), amount: o.amount };
};
const list = (value: unknown, what: string): unknown[] => (Array.isArray(value) ? value : fail(`${what} must be a list`));
const int = (value: unknown, what: string): number => (typeof value === "number" && Number.isInteger(value) ? value : fail(`${what} must be an integer`));
const oneOf = <T extends string>(value: unknown, allowed: readonly T[], what: string): T => (allowed.includes(value as T) ? (value as T) : fail(`${what} must be one of ${allowed.join(", ")}`));

const CABINS = ["basic_economy", "economy", "business"] as const;

const user = (db: Obj, id: string): Obj => db.users[id] ?? fail(`User ${id} not found`);
const reservation = (db: Obj, id: string): Obj => db.reservations[id] ?? fail(`Reservation ${id} not found`);
const flight = (db: Obj, n: string): Obj => db.flights[n] ?? fail(`Flight ${n} not found`);
const flightInstance = (db: Obj, n: string, date: string): Obj => flight(db, n).dates[date] ?? fail(`Flight ${n} not found on date ${date}`);

function searchDirect(db: Obj, date: string, origin?: string, destination?: string, leaveAfter?: string): Obj[] {
  const results: Obj[] = [];
  for (const f of Object.values(db.flights) as Obj[]) {
    const d = f.dates[date];
    if ((origin === undefined || f.origin === origin) && (destination === undefined || f.destination === destination) && d !== undefined && d.status === "available" && (leaveAfter === undefined || f.scheduled_departure_time_est >= leaveAfter)) {
      results.push({ flight_number: f.flight_number, origin: f.origin, destination: f.destination, status: "available", scheduled_departure_time_est: f.scheduled_departure_time_est, scheduled_arrival_time_est: f.scheduled_arrival_time_est, date: null, available_seats: d.available_seats, prices: d.prices });
    }
  }
  return results;
}

function paymentForUpdate(u: Obj, paymentId: string, totalPrice: number): Obj | undefined {
  const method = u.payment_methods[paymentId] ?? fail("Payment method not found");
  if (method.source === "certificate") fail("Certificate cannot be used to update reservation");
  else if (method.source === "gift_card" && method.amount < totalPrice) fail("Gift card balance is not enough");
  if (method.source === "gift_card") method.amount -= totalPrice;
  return totalPrice !== 0 ? { payment_id: paymentId, amount: totalPrice } : undefined;
}

const str = { type: "string" };
const fn = (name: string, description: string, properties: Obj, required: string[]) => ({ type: "function", function: { name, description, parameters: { type: "object", properties, required } } });
const flightInfoSchema = { type: "object", properties: { flight_number: str, date: str }, required: ["flight_number", "date"] };
const passengerSchema = { type: "object", properties: { first_name: str, last_name: str, dob: str }, required: ["first_name", "last_name", "dob"] };
const paymentSchema = { type: "object", properties: { payment_id: str, amount: { type: "integer" } }, required: ["payment_id", "amount"] };
const cabin = { type: "string", enum: CABINS };

/** τ²-bench's calculate (airline and retail alike). */
export const calculateTool: Tau2Tool = {
    name: "calculate",
    kind: "generic",
    schema: fn("calculate", "Calculate the result of a mathematical expression.", { expression: str }, ["expression"]),
    run(_db, a) {
      const expression = String(a.expression);
      if (![...expression].every((c) => "0123456789+-*/(). ".includes(c))) fail("Invalid characters in expression");
      const value = evaluateArithmetic(expression);
      return pythonFloatStr(Math.round(value * 100) / 100);
    },
  };

export const transferTool: Tau2Tool = { name: "transfer_to_human_agents", kind: "generic", schema: fn("transfer_to_human_agents", "Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or given the policy and the available tools, you cannot solve the user's issue.", { summary: str }, ["summary"]), run: () => "Transfer successful" };

const tools: Tau2Tool[] = [
  {
    name: "book_reservation",
    kind: "write",
    schema: fn("book_reservation", "Book a reservation.", { user_id: str, origin: str, destination: str, flight_type: { type: "string", enum: ["round_trip", "one_way"] }, cabin, flights: { type: "array", items: flightInfoSchema }, passengers: { type: "array", items: passengerSchema }, payment_methods: { type: "array", items: paymentSchema }, total_baggages: { type: "integer" }, nonfree_baggages: { type: "integer" }, insurance: { type: "string", enum: ["yes", "no"] } }, ["user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"]),
    run(db, a) {
      const flights = list(a.flights, "flights").map(flightInfoOf);
      const passengers = list(a.passengers, "passengers").map(passengerOf);
      const payments = list(a.payment_methods, "payment_methods").map(paymentOf);
      const cab = oneOf(a.cabin, CABINS, "cabin");
      const insurance = oneOf(a.insurance, ["yes", "no"] as const, "insurance");
      const u = user(db, String(a.user_id));
      const id = ["HATHAT", "HATHAU", "HATHAV"].find((r) => !(r in db.reservations)) ?? fail("Too many reservations");
      const res: Obj = { reservation_id: id, user_id: a.user_id, origin: a.origin, destination: a.destination, flight_type: oneOf(a.flight_type, ["round_trip", "one_way"] as const, "flight_type"), cabin: cab, flights: [], passengers: structuredClone(passengers), payment_history: structuredClone(payments), created_at: "2024-05-15T15:00:00", total_baggages: int(a.total_baggages, "total_baggages"), nonfree_baggages: int(a.nonfree_baggages, "nonfree_baggages"), insurance, status: null };
      let total = 0;
      const dates: Obj[] = [];
      for (const info of flights) {
        const f = flight(db, info.flight_number);
        const d = flightInstance(db, info.flight_number, info.date);
        if (d.status !== "available") fail(`Flight ${info.flight_number} not available on date ${info.date}`);
        if (d.available_seats[cab] < passengers.length) fail(`Not enough seats on flight ${info.flight_number}`);
        const price = d.prices[cab];
        res.flights.push({ flight_number: info.flight_number, origin: f.origin, destination: f.destination, date: info.date, price });
        dates.push(d);
        total += price * passengers.length;
      }
      if (insurance === "yes") total += 30 * passengers.length;
      total += 50 * res.nonfree_baggages;
      for (const p of payments) {
        const m = u.payment_methods[p.payment_id] ?? fail(`Payment method ${p.payment_id} not found`);
        if ((m.source === "gift_card" || m.source === "certificate") && m.amount < p.amount) fail(`Not enough balance in payment method ${p.payment_id}`);
      }
      const paid = payments.reduce((s, p) => s + p.amount, 0);
      if (paid !== total) fail(`Payment amount does not add up, total price is ${total}, but paid ${paid}`);
      for (const p of payments) {
        const m = u.payment_methods[p.payment_id];
        if (m.source === "gift_card") m.amount -= p.amount;
        else if (m.source === "certificate") delete u.payment_methods[p.payment_id];
      }
      for (const d of dates) d.available_seats[cab] -= passengers.length;
      db.reservations[id] = res;
      u.reservations.push(id);
      return res;
    },
  },
  calculateTool,
  {
    name: "cancel_reservation",
    kind: "write",
    schema: fn("cancel_reservation", "Cancel the whole reservation.", { reservation_id: str }, ["reservation_id"]),
    run(db, a) {
      const r = reservation(db, String(a.reservation_id));
      const refunds = r.payment_history.map((p: Obj) => ({ payment_id: p.payment_id, amount: -p.amount }));
      r.payment_history.push(...refunds);
      r.status = "cancelled";
      return r;
    },
  },
  { name: "get_reservation_details", kind: "read", schema: fn("get_reservation_details", "Get the details of a reservation.", { reservation_id: str }, ["reservation_id"]), run: (db, a) => reservation(db, String(a.reservation_id)) },
  { name: "get_user_details", kind: "read", schema: fn("get_user_details", "Get the details of a user, including their reservations.", { user_id: str }, ["user_id"]), run: (db, a) => user(db, String(a.user_id)) },
  {
    name: "list_all_airports",
    kind: "read",
    schema: fn("list_all_airports", "Returns a list of all available airports.", {}, []),
    run: () =>
      Object.entries({ SFO: "San Francisco", JFK: "New York", LAX: "Los Angeles", ORD: "Chicago", DFW: "Dallas", DEN: "Denver", SEA: "Seattle", ATL: "Atlanta", MIA: "Miami", BOS: "Boston", PHX: "Phoenix", IAH: "Houston", LAS: "Las Vegas", MCO: "Orlando", EWR: "Newark", CLT: "Charlotte", MSP: "Minneapolis", DTW: "Detroit", PHL: "Philadelphia", LGA: "LaGuardia" }).map(([iata, city]) => ({ iata, city })),
  },
  { name: "search_direct_flight", kind: "read", schema: fn("search_direct_flight", "Search for direct flights between two cities on a specific date.", { origin: str, destination: str, date: str }, ["origin", "destination", "date"]), run: (db, a) => searchDirect(db, String(a.date), String(a.origin), String(a.destination)) },
  {
    name: "search_onestop_flight",
    kind: "read",
    schema: fn("search_onestop_flight", "Search for one-stop flights between two cities on a specific date.", { origin: str, destination: str, date: str }, ["origin", "destination", "date"]),
    run(db, a) {
      const date = String(a.date);
      const results: Obj[][] = [];
      for (const first of searchDirect(db, date, String(a.origin))) {
        first.date = date;
        // τ²-bench's own rule: the next day is "2024-05-<day+1>" (no zero padding).
        const date2 = String(first.scheduled_arrival_time_est).includes("+1") ? `2024-05-${Number.parseInt(date.slice(-2), 10) + 1}` : date;
        for (const second of searchDirect(db, date2, first.destination, String(a.destination), first.scheduled_arrival_time_est)) {
          second.date = date2;
          results.push([first, second]);
        }
      }
      return results;
    },
  },
  {
    name: "send_certificate",
    kind: "write",
    schema: fn("send_certificate", "Send a certificate to a user. Be careful!", { user_id: str, amount: { type: "integer" } }, ["user_id", "amount"]),
    run(db, a) {
      const u = user(db, String(a.user_id));
      const amount = int(a.amount, "amount");
      for (const id of ["certificate_3221322", "certificate_3221323", "certificate_3221324"]) {
        if (!(id in u.payment_methods)) {
          u.payment_methods[id] = { source: "certificate", id, amount };
          return `Certificate ${id} added to user ${a.user_id} with amount ${amount}.`;
        }
      }
      return fail("Too many certificates");
    },
  },
  transferTool,
  {
    name: "update_reservation_baggages",
    kind: "write",
    schema: fn("update_reservation_baggages", "Update the baggage information of a reservation.", { reservation_id: str, total_baggages: { type: "integer" }, nonfree_baggages: { type: "integer" }, payment_id: str }, ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"]),
    run(db, a) {
      const r = reservation(db, String(a.reservation_id));
      const u = user(db, r.user_id);
      const nonfree = int(a.nonfree_baggages, "nonfree_baggages");
      const payment = paymentForUpdate(u, String(a.payment_id), 50 * Math.max(0, nonfree - r.nonfree_baggages));
      if (payment) r.payment_history.push(payment);
      r.total_baggages = int(a.total_baggages, "total_baggages");
      r.nonfree_baggages = nonfree;
      return r;
    },
  },
  {
    name: "update_reservation_flights",
    kind: "write",
    schema: fn("update_reservation_flights", "Update the flight information of a reservation.", { reservation_id: str, cabin, flights: { type: "array", items: flightInfoSchema }, payment_id: str }, ["reservation_id", "cabin", "flights", "payment_id"]),
    run(db, a) {
      const flights = list(a.flights, "flights").map(flightInfoOf);
      const cab = oneOf(a.cabin, CABINS, "cabin");
      const r = reservation(db, String(a.reservation_id));
      const u = user(db, r.user_id);
      let total = 0;
      const next: Obj[] = [];
      for (const info of flights) {
        const same = r.flights.find((rf: Obj) => rf.flight_number === info.flight_number && rf.date === info.date && cab === r.cabin);
        if (same) {
          total += same.price * r.passengers.length;
          next.push(same);
          continue;
        }
        const f = flight(db, info.flight_number);
        const d = flightInstance(db, info.flight_number, info.date);
        if (d.status !== "available") fail(`Flight ${info.flight_number} not available on date ${info.date}`);
        if (d.available_seats[cab] < r.passengers.length) fail(`Not enough seats on flight ${info.flight_number}`);
        const rf = { flight_number: info.flight_number, date: info.date, price: d.prices[cab], origin: f.origin, destination: f.destination };
        total += rf.price * r.passengers.length;
        next.push(rf);
      }
      total -= r.flights.reduce((s: number, f: Obj) => s + f.price, 0) * r.passengers.length;
      const payment = paymentForUpdate(u, String(a.payment_id), total);
      if (payment) r.payment_history.push(payment);
      r.flights = next;
      r.cabin = cab;
      return r;
    },
  },
  {
    name: "update_reservation_passengers",
    kind: "write",
    schema: fn("update_reservation_passengers", "Update the passenger information of a reservation.", { reservation_id: str, passengers: { type: "array", items: passengerSchema } }, ["reservation_id", "passengers"]),
    run(db, a) {
      const passengers = list(a.passengers, "passengers").map(passengerOf);
      const r = reservation(db, String(a.reservation_id));
      if (passengers.length !== r.passengers.length) fail("Number of passengers does not match");
      r.passengers = structuredClone(passengers);
      return r;
    },
  },
  { name: "get_flight_status", kind: "read", schema: fn("get_flight_status", "Get the status of a flight.", { flight_number: str, date: str }, ["flight_number", "date"]), run: (db, a) => flightInstance(db, String(a.flight_number), String(a.date)).status },
];

/** Python's str(float): integral values keep ".0". */
const pythonFloatStr = (x: number): string => (Number.isInteger(x) ? `${x}.0` : String(x));

/** + - * / and parentheses over decimal numbers, as Python's eval reads them (true division; /0 is an error). */
function evaluateArithmetic(text: string): number {
  let i = 0;
  const peek = () => text.slice(i).trimStart()[0];
  const eat = (c: string) => {
    while (text[i] === " ") i++;
    if (text[i] !== c) fail(`invalid syntax at ${i}`);
    i++;
  };
  const atom = (): number => {
    const c = peek();
    if (c === "(") {
      eat("(");
      const v = sum();
      eat(")");
      return v;
    }
    if (c === "-" || c === "+") {
      eat(c);
      const v = atom();
      return c === "-" ? -v : v;
    }
    while (text[i] === " ") i++;
    const m = /^(\d+\.?\d*|\.\d+)/.exec(text.slice(i)) ?? fail("invalid syntax");
    i += m[0].length;
    return Number(m[0]);
  };
  const product = (): number => {
    let v = atom();
    for (let c = peek(); c === "*" || c === "/"; c = peek()) {
      eat(c);
      const r = atom();
      if (c === "/" && r === 0) fail("division by zero");
      v = c === "*" ? v * r : v / r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    for (let c = peek(); c === "+" || c === "-"; c = peek()) {
      eat(c);
      v = c === "+" ? v + product() : v - product();
    }
    return v;
  };
  const v = sum();
  if (peek() !== undefined) fail("invalid syntax");
  return v;
}

export const airline: Tau2Domain = {
  name: "airline",
  className: "AirlineTools",
  dbPath: "data/tau2/domains/airline/db.json",
  policyPaths: ["data/tau2/domains/airline/policy.md"],
  tools: tools.map((t) => ({ ...t, output: OUTPUTS[t.name] })),
};
