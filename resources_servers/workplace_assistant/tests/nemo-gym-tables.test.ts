// `tables: nemo_gym`: the server fetches NeMo Gym's six CSVs at start from `tables_base_url` into `tables_dir`,
// checks each against `tables_sha256` and only then serves. Here a loopback file server stands in for GitHub: it
// serves small made-up tables in NeMo Gym's column layout, written by this test, with their digests passed in the
// config. A row using their ids scores; a digest that differs, a file the server lacks, or a stale local copy stops
// the start with the file named.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NEMO_GYM_TABLES_BASE_URL, NEMO_GYM_TABLES_SHA256, TABLE_FILES } from "../workbench/nemo-gym-tables.ts";
import { action, startWorkplace, type Harness } from "./harness.ts";

/** Made-up tables with NeMo Gym's columns (ids zero-padded to 8 digits, visitor ids 4). */
const FILES: Record<string, string> = {
  "processed/emails.csv":
    'email_id,inbox/outbox,sender/recipient,subject,sent_datetime,body\n00000501,inbox,ana.lopez@example.org,Budget draft,2023-11-20 10:00:00,"Hi,\\n\\nThe draft is attached.\\n\\nAna"\n00000502,inbox,ben.ode@example.org,Offsite,2023-11-21 11:30:00,Where do we meet?\n',
  "processed/calendar_events.csv": "event_id,event_name,participant_email,event_start,duration\n00000601,budget sync,ana.lopez@example.org,2023-12-01 10:00:00,30\n",
  "processed/analytics_data.csv": "date_of_visit,visitor_id,page_views,session_duration_seconds,traffic_source,user_engaged\n2023-11-29,0042,3,12,direct,True\n",
  "processed/project_tasks.csv": "task_id,task_name,assigned_to_email,list_name,due_date,board\n00000701,Write budget,ana.lopez@example.org,Backlog,2023-12-05,Back end\n",
  "processed/customer_relationship_manager_data.csv":
    "customer_id,assigned_to_email,customer_name,customer_email,customer_phone,last_contact_date,product_interest,status,follow_up_by,notes\n00000801,ben.ode@example.org,Cleo Park,cleo.park@acme,,2023-11-01 23:59:00,Software,Lead,2023-12-01 23:59:00,\n",
  "raw/email_addresses.csv": "ana.lopez@example.org\nben.ode@example.org\n",
};
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const DIGESTS = Object.fromEntries(Object.entries(FILES).map(([file, text]) => [file, sha256(text)]));

/** A static file server over loopback, counting what it was asked for. */
let fileServer: Server;
let baseUrl: string;
const served = new Map<string, string>();
const requested: string[] = [];
before(async () => {
  fileServer = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url!, "http://x").pathname).replace(/^\/csv_data\//, "");
    requested.push(path);
    const body = served.get(path);
    if (body === undefined) return response.writeHead(404).end("Not Found");
    response.writeHead(200, { "content-type": "text/plain" }).end(body);
  });
  await new Promise<void>((resolve) => fileServer.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/csv_data`;
});
after(() => new Promise<void>((resolve) => fileServer.close(() => resolve())));

const serveFiles = (files: Record<string, string>) => {
  served.clear();
  for (const [file, text] of Object.entries(files)) served.set(file, text);
  requested.length = 0;
};
const freshDir = () => mkdtempSync(join(tmpdir(), "workplace-nemo-tables-"));
const nemoConfig = (dir: string, extra: Record<string, unknown> = {}) => ({ tables: "nemo_gym", tables_dir: dir, tables_base_url: baseUrl, tables_sha256: DIGESTS, ...extra });

const row = (groundTruth: unknown) => ({
  id: 0,
  responses_create_params: { input: [{ role: "user", content: "Reply to Ana's budget email: 'Looks good.'" }] },
  ground_truth: groundTruth,
  category: "workplace_assistant_email",
  environment_name: "workplace_assistant",
});

describe("tables: nemo_gym, fetched from tables_base_url", () => {
  let h: Harness;
  let dir: string;
  before(async () => {
    serveFiles(FILES);
    dir = freshDir();
    h = await startWorkplace(nemoConfig(dir));
  });
  after(() => h?.close());

  test("the six files are fetched into tables_dir (NeMo Gym's csv_data layout) before the server answers", () => {
    assert.deepEqual([...requested].sort(), [...TABLE_FILES].sort());
    for (const file of TABLE_FILES) assert.equal(readFileSync(join(dir, file), "utf8"), FILES[file]);
  });

  test("the tools read them as NeMo Gym's tools do: ids as zero-padded strings", async () => {
    const cookies = (await h.post("/seed_session", row([]))).cookies;
    assert.deepEqual((await h.call(cookies, "email_get_email_information_by_id", { email_id: "00000501", field: "subject" })).output, { subject: "Budget draft" });
    assert.deepEqual((await h.call(cookies, "analytics_get_visitor_information_by_id", { visitor_id: "0042" })).output, [
      { date_of_visit: "2023-11-29", visitor_id: "0042", page_views: "3", session_duration_seconds: "12", traffic_source: "direct", user_engaged: true },
    ]);
    assert.deepEqual((await h.call(cookies, "company_directory_find_email_address", { name: "ben" })).output, ["ben.ode@example.org"]);
  });

  test("a row using their ids scores; one naming an id they lack is a 501", async () => {
    const groundTruth = [action("email_reply_email", { email_id: "00000501", body: "Looks good." }), action("customer_relationship_manager_update_customer", { customer_id: "00000801", field: "status", new_value: "Qualified" })];
    assert.equal((await h.post("/seed_session", row(groundTruth))).status, 200);
    assert.equal((await h.verify(row(groundTruth), groundTruth)).reward, 1);
    assert.equal((await h.verify(row(groundTruth), groundTruth.slice(0, 1))).reward, 0);
    const answer = await h.verify(row([action("email_reply_email", { email_id: "00000057", body: "x" })]), []);
    assert.equal(answer.status, 501);
    assert.match(answer.body.detail, /email_id 00000057 .*is not in table emails/);
    assert.ok(answer.body.detail.includes(`tables: nemo_gym (${dir})`), answer.body.detail);
  });

  test("a second start with the files in place fetches nothing (each file's digest is checked)", async () => {
    requested.length = 0;
    const again = await startWorkplace(nemoConfig(dir));
    await again.close();
    assert.deepEqual(requested, []);
  });
});

describe("tables: nemo_gym refuses to start", () => {
  test("when a fetched file's sha256 is not the expected one, naming the file; the file is not kept", async () => {
    serveFiles({ ...FILES, "processed/emails.csv": FILES["processed/emails.csv"]!.replace("Budget draft", "Budget draft v2") });
    const dir = freshDir();
    await assert.rejects(startWorkplace(nemoConfig(dir)), (error: Error) => {
      assert.match(error.message, /workplace_assistant table processed\/emails\.csv: sha256 [0-9a-f]{64} is not the expected [0-9a-f]{64}: http:\/\/127\.0\.0\.1:\d+\/csv_data\/processed\/emails\.csv \(not kept\)/);
      return true;
    });
    assert.equal(existsSync(join(dir, "processed/emails.csv")), false);
  });

  test("when a file already in tables_dir is not the expected one, naming it (nothing is fetched over it)", async () => {
    serveFiles(FILES);
    const dir = freshDir();
    mkdirSync(join(dir, "raw"), { recursive: true });
    writeFileSync(join(dir, "raw/email_addresses.csv"), "someone.else@example.org\n");
    await assert.rejects(startWorkplace(nemoConfig(dir)), new RegExp(`table raw/email_addresses\\.csv: sha256 .* is not the expected ${DIGESTS["raw/email_addresses.csv"]}: ${join(dir, "raw/email_addresses.csv")} \\(already there; delete it to fetch`));
    assert.equal(readFileSync(join(dir, "raw/email_addresses.csv"), "utf8"), "someone.else@example.org\n");
  });

  test("when the server lacks a file, naming it and its URL", async () => {
    const { "processed/project_tasks.csv": _missing, ...rest } = FILES;
    serveFiles(rest);
    await assert.rejects(startWorkplace(nemoConfig(freshDir())), /workplace_assistant table processed\/project_tasks\.csv: could not fetch it: http:\/\/127\.0\.0\.1:\d+\/csv_data\/processed\/project_tasks\.csv: HTTP 404/);
  });

  test("on keys that would change nothing or are incomplete: tables_base_url or tables_sha256 with tables: ours, a digest missing", async () => {
    await assert.rejects(startWorkplace({ tables_base_url: baseUrl }), /tables_base_url applies to tables: nemo_gym only/);
    await assert.rejects(startWorkplace({ tables: "ours", tables_sha256: DIGESTS }), /tables_sha256 applies to tables: nemo_gym only/);
    const { "raw/email_addresses.csv": _dropped, ...partial } = DIGESTS;
    await assert.rejects(startWorkplace(nemoConfig(freshDir(), { tables_sha256: partial })), /tables_sha256.*missing raw\/email_addresses\.csv/);
    await assert.rejects(startWorkplace({ tables: "theirs" }), /tables/);
    await assert.rejects(startWorkplace({ tables: "nemo_gym", tables_dir: "resources_servers/workplace_assistant/data/tables" }), /tables: nemo_gym cannot use tables_dir .*data\/tables: it holds this project's own tables/);
  });
});

test("the defaults point at NeMo Gym's repository at the pinned commit, one digest per file", () => {
  assert.equal(NEMO_GYM_TABLES_BASE_URL, "https://raw.githubusercontent.com/NVIDIA-NeMo/Gym/07d6b0d07b22fcf530b4c211dae2ee23100428e4/resources_servers/workplace_assistant/csv_data");
  assert.deepEqual(Object.keys(NEMO_GYM_TABLES_SHA256).sort(), Object.keys(FILES).sort());
});
