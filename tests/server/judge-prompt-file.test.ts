// A judge prompt template named by a server's config: read from the server's folder; NeMo Gym's own template,
// absent, fetched on first use from NEMO_GYM_RAW_BASE_URL (a loopback server here) and checked against its pinned
// sha256; a wrong download is refused (501) and not kept; a path that is neither there nor pinned is a config problem.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { NEMO_GYM_RAW_BASE_URL_ENV } from "../../src/config/nemo-gym-files.ts";
import { HttpError, judgePromptFileProblem, readJudgePromptFile } from "../../src/server/index.ts";
import { sharedDataFile } from "../../src/testing/index.ts";

const SERVER_DIR = join(PROJECT_ROOT, "resources_servers/equivalence_llm_judge");
const PINNED = "prompt_templates/lc_judge.txt";
const shared = sharedDataFile("equivalence_llm_judge/prompt_templates/lc_judge.txt");
const dest = join(SERVER_DIR, PINNED);
// A copy the user already has is theirs: the fetch is only tested when none is there.
const skip = shared.skip || (existsSync(dest) ? `${dest} is already there` : false);

let body = "";
let server: Server;
let requests = 0;
before(async () => {
  server = createServer((_request, response) => {
    requests++;
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env[NEMO_GYM_RAW_BASE_URL_ENV] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  delete process.env[NEMO_GYM_RAW_BASE_URL_ENV];
  await new Promise((resolve) => server.close(resolve));
});

test("a file in place is read as it is (relative to the server's folder, or absolute)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gym-judge-prompt-"));
  writeFileSync(join(dir, "mine.txt"), "  {question}\n");
  assert.equal(await readJudgePromptFile(dir, "mine.txt"), "  {question}\n");
  assert.equal(await readJudgePromptFile("/elsewhere", join(dir, "mine.txt")), "  {question}\n");
  assert.equal(judgePromptFileProblem(dir, "mine.txt"), undefined);
});

test("neither there nor NeMo Gym's: a problem at config time, a 501 if asked anyway", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gym-judge-prompt-"));
  assert.match(judgePromptFileProblem(dir, "absent.txt")!, /no such file: .*absent\.txt/);
  await assert.rejects(readJudgePromptFile(dir, "absent.txt"), (error: unknown) => error instanceof HttpError && error.statusCode === 501);
});

test("NeMo Gym's template, absent: named without a problem, fetched on first use at its pinned digest, refused when the digest differs", { skip }, async () => {
  assert.equal(judgePromptFileProblem(SERVER_DIR, PINNED), undefined);
  try {
    body = "not NeMo Gym's template";
    await assert.rejects(readJudgePromptFile(SERVER_DIR, PINNED), (error: unknown) => error instanceof HttpError && error.statusCode === 501 && /sha256 .* is not the expected 40ca2bea/.test(String(error.detail)));
    assert.equal(existsSync(dest), false, "a wrong download is not kept");
    body = readFileSync(shared.path!, "utf8");
    const before = requests;
    assert.equal(await readJudgePromptFile(SERVER_DIR, PINNED), body, "a failed fetch is tried again");
    assert.equal(await readJudgePromptFile(SERVER_DIR, PINNED), body);
    assert.equal(requests - before, 1, "fetched once");
    assert.equal(readFileSync(dest, "utf8"), body);
  } finally {
    if (existsSync(dest)) unlinkSync(dest);
  }
});
