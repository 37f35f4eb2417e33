// NeMo Gym's prompt text for a judge environment: read out of its file (whole, a YAML key, a Python constant, a
// function's f-string) and fetched at start over real HTTP from a loopback stand-in for its repository, checked by
// sha256; a file already there is kept; a wrong digest or an absent unknown file fails, naming it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { extractNemoGymText, NemoGymTextError, readServerPromptFile, type NemoGymText } from "../../src/server/nemo-gym-text.ts";
import { pythonFormat } from "../../src/python/str-format.ts";

const APP_PY = [
  "import re",
  "",
  '_GRADER = """\\',
  "Question: {question}",
  'Say "A" or "B"."""',
  "",
  "",
  "class Config:",
  "    template: str = Field(default=_GRADER)",
  "",
  "    def _build_prompt(self, prompt: str) -> str:",
  '        mode = "/think" if self.reasoning else "/no_think"',
  '        return f"""Check {prompt} against {self.cfg.taxonomy}. {{literal}}',
  "",
  '{mode}"""',
  "",
].join("\n");
const CONFIG_YAML = "env:\n  resources_servers:\n    env:\n      judge_prompt_template: |-\n        Judge {x}\n        then [[OK]]\n";

describe("extractNemoGymText", () => {
  test("a module constant, only its own assignment read (later uses of it are not its business)", () => {
    assert.equal(extractNemoGymText(APP_PY, { repoPath: "app.py", extract: { kind: "python_constant", name: "_GRADER" } }), 'Question: {question}\nSay "A" or "B".');
  });
  test("a function's f-string becomes a str.format template; literal braces stay doubled", () => {
    const text = extractNemoGymText(APP_PY, { repoPath: "app.py", extract: { kind: "python_fstring", function: "_build_prompt", fields: { prompt: "prompt", "self.cfg.taxonomy": "taxonomy", mode: "mode" } } });
    assert.equal(text, "Check {prompt} against {taxonomy}. {{literal}}\n\n{mode}");
    assert.equal(pythonFormat(text, [], { prompt: "P", taxonomy: "T", mode: "/think" }), "Check P against T. {literal}\n\n/think");
  });
  test("an f-string expression that is not mapped is refused", () => {
    assert.throws(() => extractNemoGymText(APP_PY, { repoPath: "app.py", extract: { kind: "python_fstring", function: "_build_prompt", fields: { prompt: "prompt" } } }), NemoGymTextError);
  });
  test("a YAML key path", () => {
    assert.equal(extractNemoGymText(CONFIG_YAML, { repoPath: "c.yaml", extract: { kind: "yaml", path: ["env", "resources_servers", "env", "judge_prompt_template"] } }), "Judge {x}\nthen [[OK]]");
    assert.throws(() => extractNemoGymText(CONFIG_YAML, { repoPath: "c.yaml", extract: { kind: "yaml", path: ["env", "nope"] } }), /no string at env.nope/);
  });
});

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const FILES: Record<string, string> = { "resources_servers/env/app.py": APP_PY, "resources_servers/env/judge.txt": "whole {file}\n" };
const DIGESTS = Object.fromEntries(Object.entries(FILES).map(([path, text]) => [path, sha(text)]));
const PINNED: Record<string, NemoGymText> = {
  "prompt_templates/grader.txt": { repoPath: "resources_servers/env/app.py", extract: { kind: "python_constant", name: "_GRADER" } },
  "prompt_templates/judge.txt": { repoPath: "resources_servers/env/judge.txt", extract: { kind: "file" } },
};

let server: Server;
let baseUrl: string;
const served: string[] = [];
before(async () => {
  server = createServer((request, response) => {
    const path = decodeURIComponent(request.url!.slice(1));
    served.push(path);
    if (FILES[path] === undefined) return void response.writeHead(404).end("no");
    response.writeHead(200, { "content-type": "text/plain" }).end(FILES[path]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("readServerPromptFile", () => {
  test("an absent pinned prompt is fetched, extracted, written, and read from disk the next time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-nemo-text-"));
    const fetched: string[] = [];
    const text = await readServerPromptFile(dir, "prompt_templates/grader.txt", PINNED, { baseUrl, sha256: DIGESTS, onFetched: (dest) => fetched.push(dest) });
    assert.equal(text, 'Question: {question}\nSay "A" or "B".');
    assert.equal(readFileSync(join(dir, "prompt_templates/grader.txt"), "utf8"), text);
    assert.deepEqual(fetched, [join(dir, "prompt_templates/grader.txt")]);
    const before = served.length;
    assert.equal(await readServerPromptFile(dir, "prompt_templates/grader.txt", PINNED, { baseUrl, sha256: DIGESTS }), text);
    assert.equal(served.length, before, "not fetched again");
  });

  test("a whole file; and a file already there is the user's and is used as it is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-nemo-text-"));
    assert.equal(await readServerPromptFile(dir, "prompt_templates/judge.txt", PINNED, { baseUrl, sha256: DIGESTS }), "whole {file}\n");
    writeFileSync(join(dir, "prompt_templates/judge.txt"), "mine");
    assert.equal(await readServerPromptFile(dir, "./prompt_templates/judge.txt", PINNED, { baseUrl, sha256: DIGESTS }), "mine");
  });

  test("a source whose sha256 is not the pinned one is refused and nothing is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-nemo-text-"));
    const wrong = { ...DIGESTS, "resources_servers/env/judge.txt": "0".repeat(64) };
    await assert.rejects(readServerPromptFile(dir, "prompt_templates/judge.txt", PINNED, { baseUrl, sha256: wrong }), (error: Error) => error instanceof NemoGymTextError && /sha256 .* is not the expected/.test(error.message));
    assert.equal(existsSync(join(dir, "prompt_templates/judge.txt")), false);
  });

  test("an absent file that is not a pinned one fails, naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-nemo-text-"));
    await assert.rejects(readServerPromptFile(dir, "prompt_templates/other.txt", PINNED, { baseUrl, sha256: DIGESTS }), /prompt file .*other\.txt does not exist/);
  });
});
