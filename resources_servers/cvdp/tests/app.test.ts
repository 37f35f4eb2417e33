// CVDP over real HTTP: the model's Verilog simulated with Icarus Verilog in real bubblewrap sandboxes (they need bwrap
// and iverilog: without them the server answers 503/501 and these tests fail loudly). Rows are our own (data/).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assistantMessage, http, overHttp, readRows, responseWith, startServers, type ServerCalls } from "../../../src/testing/index.ts";
import type { InProcessGraph } from "../../../src/testing/in-process.ts";
import cvdp from "../app.ts";
import { parseModelResponse } from "../extract.ts";
import { parseDotEnv, workspacePath } from "../harness.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl")) as Record<string, any>[];
const [counterRow, adderRow, syncSpecRow, prioQaRow] = rows as [Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>];

const COUNTER = "module counter(input clk, input rst, input en, output reg [3:0] count);\n  always @(posedge clk) if (rst) count <= 0; else if (en) count <= count + 1;\nendmodule\n";
const ADDER = "module adder(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);\n  assign {cout, sum} = a + b + cin;\nendmodule\n";
const fenced = (code: string) => `Here is the design:\n\`\`\`verilog\n${code}\`\`\`\n`;

let graph: InProcessGraph;
let server: ServerCalls;
let noIverilog: ServerCalls;
before(async () => {
  graph = await startServers({ cvdp: [cvdp, { container_timeout: 3 }], cvdp_no_tool: [cvdp, { iverilog_path: "/nonexistent/iverilog" }] });
  server = overHttp(graph.url("cvdp"), http());
  noIverilog = overHttp(graph.url("cvdp_no_tool"), http());
});
after(() => graph.close());

async function verify(target: ServerCalls, row: Record<string, any>, answer: string, extra: Record<string, unknown> = {}) {
  const reply = await target.post("/verify", { ...row, response: responseWith([assistantMessage(answer)]), ...extra });
  return { status: reply.status, text: reply.text, body: reply.json() as Record<string, any> };
}

test("a correct design passes: its trace equals the reference's for a fresh seed", async () => {
  for (const [row, code] of [[counterRow, COUNTER], [adderRow, ADDER]] as const) {
    const { status, text, body } = await verify(server, row, fenced(code));
    assert.equal(status, 200, text);
    assert.equal(body.reward, 1.0, body.container_stderr);
    assert.equal(body.container_exit_code, 0);
    assert.equal(body.task_id, row.verifier_metadata.task_id);
    assert.deepEqual(body.extracted_rtl, { [row.verifier_metadata.target_files[0]]: code });
    assert.equal(body.parse_failed, false);
    assert.equal(typeof body.container_services[0].seed, "number");
  }
});

test("a wrong design fails; so does one that does not compile, and one that never stops (container_timeout)", async () => {
  const wrong = await verify(server, adderRow, fenced(ADDER.replace("+ cin", "- cin")));
  assert.equal(wrong.body.reward, 0.0);
  const broken = await verify(server, adderRow, fenced("module adder(input [7:0] a; endmodule\n"));
  assert.equal(broken.body.reward, 0.0);
  assert.match(broken.body.container_stderr, /syntax error|error/i);
  const hangs = await verify(server, adderRow, fenced(ADDER.replace("endmodule", "  reg x = 0;\n  initial forever x = ~x;\nendmodule")));
  assert.equal(hangs.body.reward, 0.0);
  assert.match(hangs.body.container_stderr, /timed out after 3 s/);
});

test("forging: printing PASS, fake TRACE lines, $finish, or rewriting the testbench's loop by hierarchical reference does not pass", async () => {
  const forgeries = {
    "prints PASS and finishes": "module adder(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);\n  initial begin $display(\"PASS\"); $display(\"TEST PASSED\"); $finish; end\nendmodule\n",
    "prints a plausible trace": "module adder(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);\n  integer k;\n  initial begin for (k = 0; k < 64; k = k + 1) $display(\"TRACE a=0 b=0 cin=0 sum=0 cout=0\"); $finish; end\nendmodule\n",
    "stops the testbench's loop": "module adder(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);\n  assign {cout, sum} = 0;\n  initial tb_adder.i = 1000;\nendmodule\n",
    // The design may read the seed: it is still scored on outputs it must compute itself.
    "reads the seed, prints the wrong outputs": "module adder(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);\n  integer s;\n  assign {cout, sum} = a ^ b;\n  initial if ($value$plusargs(\"seed=%d\", s)) $display(\"TRACE seed %0d\", s);\nendmodule\n",
  };
  for (const [name, code] of Object.entries(forgeries)) {
    const { status, body } = await verify(server, adderRow, fenced(code));
    assert.equal(status, 200, name);
    assert.equal(body.reward, 0.0, name);
  }
});

test("the reference design is never in the candidate's sandbox", async () => {
  // A design that includes the reference's file would pass if it were there; it is not, so this does not compile.
  const { body } = await verify(server, adderRow, fenced("`include \"ref/adder.sv\"\n"));
  assert.equal(body.reward, 0.0);
  assert.match(body.container_stderr, /ref\/adder\.sv/);
});

test("no iverilog: a 501 naming it, never a 0", async () => {
  const { status, text } = await verify(noIverilog, adderRow, fenced(ADDER));
  assert.equal(status, 501);
  assert.match(text, /iverilog is not installed here/);
});

test("a cocotb harness (every CVDP row) is a 501 naming cocotb and why it is missing", async () => {
  const cocotbRow = { ...adderRow, verifier_metadata: { ...adderRow.verifier_metadata, harness_files: { "docker-compose.yml": "services:\n  direct:\n    command: pytest /src/test_runner.py\n", "src/.env": "SIM = icarus\nTOPLEVEL = adder\nMODULE = test_adder\nVERILOG_SOURCES = /code/rtl/adder.sv\n" } } };
  const cocotb = await verify(server, cocotbRow, fenced(ADDER));
  assert.equal(cocotb.status, 501);
  assert.match(cocotb.text, /cocotb harness \(src\/\.env MODULE=test_adder\); cocotb is not installed here \(Debian does not package it/);
});

// Expected scores: NLTK 3.10.3 through NeMo Gym's cvdp_lib/subjective.py (calculate_BLEU / calculate_ROUGE with
// n = 2 on the stripped answer), computed once outside the tests; tests/ports/text-overlap.test.ts has the full table.
const SYNC_ANSWER = "sync2 is a two-flop synchronizer: on each rising edge of clk, d is sampled into meta and meta is copied to q, so q follows d two cycles later. rst_n is an asynchronous active-low reset that clears both registers.";
const PRIO_ANSWER = "Bit 3 of req has the highest priority, so the highest set bit wins and idx is its index. When req is zero, valid is low and idx is 0.";

test("code comprehension (cid006, cid009): reward is the BLEU-2 score against subjective_reference, ROUGE-2 recall beside it", async () => {
  for (const [row, answer, bleu, rouge] of [[syncSpecRow, SYNC_ANSWER, 0.49502993655228855, 0.52], [prioQaRow, PRIO_ANSWER, 0.43642398566044477, 0.4]] as const) {
    const { status, text, body } = await verify(server, row, answer);
    assert.equal(status, 200, text);
    assert.deepEqual(
      [body.reward, body.bleu_score, body.rouge_score, body.category, body.execution_time, body.extracted_rtl, body.container_exit_code, body.parse_failed],
      [bleu, bleu, rouge, row.verifier_metadata.categories[0], null, null, null, false],
    );
  }
  // The reference itself scores 1.0, written as Python writes a float; no shared word is exactly 0.
  const same = await verify(server, syncSpecRow, `  ${syncSpecRow.verifier_metadata.subjective_reference}\n`);
  assert.match(same.text, /"reward":1\.0,.*"bleu_score":1\.0,"rouge_score":1\.0/);
  const none = await verify(server, prioQaRow, "Nobody knows.");
  assert.match(none.text, /"reward":0\.0,.*"bleu_score":0\.0,"rouge_score":0\.0/);
});

test("code comprehension without subjective_reference scores 0 and says why; a one-word reference is NeMo Gym's 500 (ROUGE-2 divides by zero)", async () => {
  const noReference = await verify(server, { ...prioQaRow, verifier_metadata: { ...prioQaRow.verifier_metadata, subjective_reference: null } }, PRIO_ANSWER);
  assert.equal(noReference.status, 200);
  assert.deepEqual([noReference.body.reward, noReference.body.container_stderr, noReference.body.bleu_score], [0.0, "No subjective_reference provided for code-comprehension category", null]);
  const oneWord = await verify(server, { ...prioQaRow, verifier_metadata: { ...prioQaRow.verifier_metadata, subjective_reference: "Zero." } }, PRIO_ANSWER);
  assert.equal(oneWord.status, 500);
  assert.equal(oneWord.body, "ZeroDivisionError('division by zero')");
});

test("empty answer: 0 with nothing run; unparsable multi-file answer: parse_failed; rtl_files are graded as given", async () => {
  const empty = await verify(server, adderRow, "");
  assert.deepEqual([empty.body.reward, empty.body.parse_failed, empty.body.extracted_rtl], [0.0, false, null]);
  const twoFiles = { ...adderRow, verifier_metadata: { ...adderRow.verifier_metadata, target_files: ["rtl/adder.sv", "rtl/other.sv"] } };
  const unparsable = await verify(server, twoFiles, "not json at all");
  assert.deepEqual([unparsable.body.reward, unparsable.body.parse_failed], [0.0, true]);
  const agentic = await verify(server, adderRow, "done", { rtl_files: { "rtl/adder.sv": ADDER } });
  assert.equal(agentic.body.reward, 1.0);
});

test("CVDP's answer parsing: first fenced block for one file, a JSON `code` list for several", () => {
  assert.deepEqual(parseModelResponse("```sv\nA\n```\n```sv\nB\n```", ["rtl/x.sv"]), { "rtl/x.sv": "A\n" });
  assert.deepEqual(parseModelResponse("  plain  ", ["rtl/x.sv"]), { "rtl/x.sv": "plain" });
  assert.deepEqual(parseModelResponse('x {"code": [{"rtl/a.sv": "```v\\nA\\n```"}, {"rtl/b.sv": "B"}]} y', ["rtl/a.sv", "rtl/b.sv"]), { "rtl/a.sv": "A\n", "rtl/b.sv": "B" });
  assert.equal(parseModelResponse("{bad", ["a", "b"]), undefined);
  assert.deepEqual(parseDotEnv("# c\nA = 1 \nB=x=y\n\nnoequals\n"), { A: "1", B: "x=y" });
  assert.equal(workspacePath("/code/rtl/a.sv", "/code"), "rtl/a.sv");
  assert.equal(workspacePath("/code/../etc/passwd", "/code"), undefined);
  assert.equal(workspacePath("/etc/passwd", "/code"), undefined);
});
