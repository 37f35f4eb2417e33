// Writes the project's own WorkBench tables to data/tables/ (NeMo Gym's csv_data layout, same columns and value
// formats, far fewer rows): a fictional company, made up here from a fixed seed, so the output never changes.
//   node --import tsx resources_servers/workplace_assistant/scripts/generate-tables.ts [out_dir]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seededRandom } from "../../../src/models/seeded-random.ts";

const SEED = 20231130;

const random = seededRandom(SEED);
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
const pad = (n: number, width = 2) => String(n).padStart(width, "0");
const ids = (count: number, max: number) => {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(int(1, max));
  return [...chosen].map((n) => pad(n, 8));
};

/** A date `offset` days after `start` (YYYY-MM-DD). */
function day(start: string, offset: number): string {
  const date = new Date(`${start}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + offset);
  return date.toISOString().slice(0, 10);
}

const DOMAIN = "brightline.io";
const PEOPLE = ["maya.okafor", "liam.novak", "priya.raman", "jonas.weber", "elena.rossi", "omar.haddad", "grace.kim", "diego.alvarez", "hana.sato", "felix.berg", "zara.nyong", "tomas.silva"];
const email = (person: string) => `${person}@${DOMAIN}`;
const firstName = (person: string) => person.split(".")[0]!.replace(/^./, (c) => c.toUpperCase());
const ENGINEERS = PEOPLE.slice(0, 7);
const SALES = PEOPLE.slice(6, 12);

const TASKS = [
  "Design login page", "Fix payment API timeout", "Add dark mode toggle", "Write onboarding emails", "Refactor billing service",
  "Create wireframe for dashboard", "Set up error monitoring", "Improve search ranking", "Update privacy policy page", "Build export to CSV",
  "Optimize image loading", "Add audit logging", "Review accessibility issues", "Migrate user table", "Prototype mobile navigation",
];
const TOPICS = ["Q4 Roadmap", "Vendor Contract", "Team Offsite", "Hiring Plan", "Security Review", "Budget Forecast", "Customer Feedback"];
const MEETINGS = ["sync up", "design review", "1:1", "quarterly planning", "customer demo", "budget review", "retrospective"];
const LISTS = ["Backlog", "In Progress", "In Review", "Completed"];
const BOARDS = ["Back end", "Front end", "Design"];
const SOURCES = ["direct", "referral", "search engine", "social media"];
const PRODUCTS = ["Software", "Hardware", "Services", "Consulting", "Training"];
const STATUSES = ["Qualified", "Won", "Lost", "Lead", "Proposal"];
const CUSTOMER_FIRST = ["Avery", "Jordan", "Riley", "Morgan", "Casey", "Quinn", "Parker", "Rowan", "Skyler", "Dana", "Emerson", "Harper"];
const CUSTOMER_LAST = ["Stone", "Reyes", "Patel", "Lindqvist", "Mbeki", "Fischer", "Moreau", "Tanaka", "Oyelaran", "Castillo"];
const COMPANIES = ["northpeak", "silvergate", "bluefin", "ironleaf", "quantaworks", "meadowsoft", "clearpath", "redwoodlabs"];

function csv(columns: string[], rows: string[][]): string {
  const quote = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  return [columns, ...rows].map((row) => row.map(quote).join(",")).join("\n") + "\n";
}

function emails(): string {
  const rows = ids(40, 400).map((id, i) => {
    const person = pick(PEOPLE);
    const inbox = random() < 0.75;
    const task = pick(TASKS);
    const topic = pick(TOPICS);
    const kind = int(0, 2);
    const subject = kind === 0 ? `Task Update on ${task}` : kind === 1 ? `Update on ${topic}` : `Request: ${topic}`;
    const body = inbox
      ? kind === 0
        ? `Hi Alex,\\n\\nQuick update: '${task}' is ${pick(["on track", "blocked on review", "almost done"])}. Let me know if you have questions.\\n\\nBest,\\n${firstName(person)}`
        : `Hi Alex,\\n\\nCould we talk about the ${topic} this week? I have a few ideas to share.\\n\\nThanks,\\n${firstName(person)}`
      : `Hi ${firstName(person)},\\n\\nThanks for the note on ${kind === 0 ? task : topic}. Let's discuss it at our next sync.\\n\\nBest,\\nAlex`;
    const sent = `${day("2023-10-01", Math.floor((i * 60) / 40))} ${pad(int(8, 18))}:${pad(int(0, 59))}:${pad(int(0, 59))}`;
    return [id, inbox ? "inbox" : "outbox", email(person), subject, sent, body];
  });
  return csv(["email_id", "inbox/outbox", "sender/recipient", "subject", "sent_datetime", "body"], rows);
}

function calendarEvents(): string {
  const rows = ids(30, 300).map((id, i) => {
    const start = `${day("2023-10-02", Math.floor((i * 80) / 30))} ${pad(int(9, 16))}:${pick(["00", "30"])}:00`;
    return [id, pick(MEETINGS), email(pick(PEOPLE)), start, pick(["30", "60", "90"])];
  });
  return csv(["event_id", "event_name", "participant_email", "event_start", "duration"], rows);
}

function analytics(): string {
  const rows = Array.from({ length: 50 }, () => [day("2023-11-01", int(0, 29)), pad(int(0, 9999), 4), String(int(1, 12)), String(int(1, 60)), pick(SOURCES), random() < 0.4 ? "True" : "False"]);
  return csv(["date_of_visit", "visitor_id", "page_views", "session_duration_seconds", "traffic_source", "user_engaged"], rows);
}

function projectTasks(): string {
  const rows = ids(30, 300).map((id) => [id, pick(TASKS), email(pick(ENGINEERS)), pick(LISTS), day("2023-11-01", int(0, 60)), pick(BOARDS)]);
  return csv(["task_id", "task_name", "assigned_to_email", "list_name", "due_date", "board"], rows);
}

function customers(): string {
  const rows = ids(30, 200).map((id) => {
    const first = pick(CUSTOMER_FIRST);
    const last = pick(CUSTOMER_LAST);
    const contacted = day("2023-09-15", int(0, 76));
    const notes = random() < 0.3 ? "" : Array.from({ length: int(1, 3) }, () => `${day("2023-10-01", int(0, 60))}: ${pick(["Had a call.", "Saw the demo.", "Sent a quote.", "Asked for pricing."])} `).join("");
    return [
      id,
      email(pick(SALES)),
      `${first} ${last}`,
      `${first.toLowerCase()}.${last.toLowerCase()}@${pick(COMPANIES)}`,
      random() < 0.5 ? "" : `${int(200, 989)}-${int(200, 989)}-${pad(int(0, 9999), 4)}`,
      `${contacted} 23:59:00`,
      pick(PRODUCTS),
      pick(STATUSES),
      `${day(contacted, int(7, 30))} 23:59:00`,
      notes,
    ];
  });
  return csv(["customer_id", "assigned_to_email", "customer_name", "customer_email", "customer_phone", "last_contact_date", "product_interest", "status", "follow_up_by", "notes"], rows);
}

const outDir = process.argv[2] ?? join(import.meta.dirname, "..", "data", "tables");
mkdirSync(join(outDir, "processed"), { recursive: true });
mkdirSync(join(outDir, "raw"), { recursive: true });
// The order of the generators is part of the seed: add new tables at the end.
const files: [string, string][] = [
  ["processed/emails.csv", emails()],
  ["processed/calendar_events.csv", calendarEvents()],
  ["processed/analytics_data.csv", analytics()],
  ["processed/project_tasks.csv", projectTasks()],
  ["processed/customer_relationship_manager_data.csv", customers()],
  ["raw/email_addresses.csv", PEOPLE.map(email).join("\n") + "\n"],
];
for (const [path, content] of files) writeFileSync(join(outDir, path), content);
console.log(`wrote ${files.length} tables to ${outDir}`);
