// ether0's verify (fastify inject, RDKit as WebAssembly): NeMo Gym's response, the answer's extraction (tags, ether0's
// tokens, boxes, Answer: letters through choices), the solution string, each reward function, the 501s for what cannot
// be had here (bloom filters, exmol, the remote server) and the data. Every expectation was checked against NeMo Gym's
// Python verify with ether0's rewards and RDKit, run locally as an oracle (RDKit 2022.09 there, 2026.09 here: they
// differ only where newer RDKit accepts a valence the older one refused).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import { molFormula, molFromSmiles } from "../../../src/ports/chem/rdkit.ts";
import { normalizeIupac } from "../rewards.ts";
import ether0, { extractAnswer } from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");
const params = { input: [{ role: "user", content: "Q" }] };

let env: InjectedServer;
before(async () => (env = await injectServer(ether0)));
after(() => env.close());

const verifyWith = (response: Item, solution: unknown, extra: Item = {}) => env.post("/verify", { responses_create_params: params, verifier_metadata: { solution, problem_type: "p", ...extra }, response });
const verify = (text: string, solution: unknown, extra: Item = {}) => verifyWith(responseWith([assistantMessage(text)]), solution, extra);
async function reward(text: string, solution: string, extra: Item = {}) {
  const answer = await verify(text, solution, extra);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Item>().reward;
}
const tagged = (answer: string) => `Thinking.\n<answer>${answer}</answer>`;

describe("the verify response", () => {
  test("has NeMo Gym's fields in order; verifier_metadata is not echoed", async () => {
    const answer = await verify(tagged("FCC(=O)O"), "str_eval!:!FCC(=O)O!:!property-regression-ld50", { problem_type: "property-regression-ld50" });
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "extracted_answer", "eval_function", "problem_type"]);
    assert.match(answer.text, /"reward":1\.0,"extracted_answer":"FCC\(=O\)O","eval_function":"str_eval","problem_type":"property-regression-ld50"}$/);
  });

  test("a malformed solution, an unknown function, or no answer scores 0.0 with what is known", async () => {
    assert.deepEqual(Object.values((await verify(tagged("CCO"), "bad_format")).json<Item>()).slice(2), [0, null, null, "p"]);
    assert.deepEqual(Object.values((await verify(tagged("CCO"), "nope!:!CCO!:!p")).json<Item>()).slice(2), [0, "CCO", "nope", "p"]);
    assert.deepEqual(Object.values((await verify("I have no idea", "str_eval!:!CCO!:!p")).json<Item>()).slice(2), [0, null, "str_eval", "p"]);
    assert.equal((await verify(tagged("CCO"), { fxn_name: "str_eval", answer_info: "CCO", problem_type: "p" })).json<Item>().reward, 1, "a solution object");
  });
});

describe("the answer", () => {
  test("the last <answer> tag (not a nested one), ether0's answer tokens, else the last box, else the last Answer: letter", () => {
    assert.equal(extractAnswer("<answer>A</answer> then <answer> CCO </answer>"), "CCO");
    assert.equal(extractAnswer("<answer>x<answer>CCO</answer>"), undefined, "a nested tag is no answer, and nothing else is looked for");
    assert.equal(extractAnswer(String.raw`\boxed{C} and \boxed{ C{1}C }`), "C{1}C");
    assert.equal(extractAnswer(String.raw`\boxed{ }`), undefined);
    assert.equal(extractAnswer("Answer: a\nAnswer: B  \nbye"), "B");
    assert.equal(extractAnswer("Answer: AB"), undefined);
  });

  test("ether0's <|answer_start|> tokens count as tags; the text is every assistant message part, joined by newlines", async () => {
    assert.equal(await reward("<|think_start|>hmm<|think_end|><|answer_start|>CCO<|answer_end|>", "str_eval!:!CCO!:!p"), 1);
    const response = responseWith([assistantMessage("<answer>C"), assistantMessage("CO</answer>")]);
    assert.equal((await verifyWith(response, "str_eval!:!C\nCO!:!p")).json<Item>().extracted_answer, "C\nCO");
  });

  test("a lone letter is read through verifier_metadata.choices", async () => {
    const choices = { A: "NNC1=CC=C(C=C1)Cl", C: "C1=CC(NN)=CC=C1C" };
    const answer = await verify("Let me think...\nAnswer: c", "str_eval!:!C1=CC(NN)=CC=C1C!:!pka", { choices });
    assert.deepEqual([answer.json<Item>().reward, answer.json<Item>().extracted_answer], [1, "C1=CC(NN)=CC=C1C"]);
    assert.equal((await verify("Answer: B", "str_eval!:!B!:!pka", { choices })).json<Item>().reward, 1, "a letter without a choice stays a letter");
  });
});

describe("names", () => {
  test("str_eval compares IUPAC names casefolded, without formatting, spaces as hyphens", async () => {
    assert.equal(await reward(tagged("2-Methyl propan-1-ol"), "str_eval!:!2-methyl-propan-1-ol!:!molecule-name"), 1);
    assert.equal(await reward(tagged("butan-1-ol"), "str_eval!:!2-methylpropan-1-ol!:!molecule-name"), 0);
    assert.equal(normalizeIupac(" N^{1},N^{2}-dimethyl-{N}-ethane "), "n(1),n(2)-dimethyl-n-ethane");
    assert.equal(normalizeIupac("2-(chloro)-propane $~"), "2-chloro-propane-");
    assert.equal(normalizeIupac("STRASSE"), normalizeIupac("straße"));
  });

  test("rxn_eval also ignores dashes and punctuation", async () => {
    assert.equal(await reward(tagged("Fischer esterification"), "rxn_eval!:!Fischer–Esterification!:!reaction-name"), 1);
    assert.equal(await reward(tagged("Fischer-esterification."), "rxn_eval!:!fischer esterification!:!reaction-name"), 1);
    assert.equal(await reward(tagged("Wittig"), "rxn_eval!:!fischer esterification!:!reaction-name"), 0);
  });
});

describe("molecules", () => {
  test("product_eval / caption_eval: the largest fragments are the same molecule", async () => {
    assert.equal(await reward(String.raw`\boxed{CC(=O)OCC.O}`, "product_eval!:!CCOC(C)=O!:!reaction-prediction"), 1);
    assert.equal(await reward(tagged("C1=CC=CC=C1"), "caption_eval!:!c1ccccc1!:!molecule-caption"), 1);
    assert.equal(await reward(tagged("CCOC(=O)CC"), "product_eval!:!CCOC(C)=O!:!reaction-prediction"), 0);
    assert.equal(await reward(tagged("C[C@H](O)CC"), "product_eval!:!C[C@@H](O)CC!:!reaction-prediction"), 0, "stereo counts");
    assert.equal(await reward(tagged("not a molecule"), "product_eval!:!CCO!:!reaction-prediction"), 0);
    assert.equal(await reward(tagged("CCO"), "product_eval!:!C1CC!:!reaction-prediction"), 0, "an invalid ground truth scores 0");
  });

  test("should_answer_eval: any molecule RDKit parses", async () => {
    assert.equal(await reward(tagged("CS(C)=O"), "should_answer_eval!:!!:!should-answer"), 1);
    assert.equal(await reward(tagged("C1CC"), "should_answer_eval!:!!:!should-answer"), 0);
  });

  test("formula_eval: the formula must match; the reference molecule itself scores 1.0, another isomer needs the bloom filters", async () => {
    assert.equal(await reward(tagged("OCC"), "formula_eval!:!CCO!:!molecule-formula"), 1);
    assert.equal(await reward(tagged("CC=O"), "formula_eval!:!CCO!:!molecule-formula"), 0);
    const answer = await verify(tagged("COC"), "formula_eval!:!CCO!:!molecule-formula");
    assert.equal(answer.status, 501);
    assert.match(answer.text, /formula_eval needs ether0's molecule-reasonableness filters \(rings\.bloom and fingerprints\.bloom/);
  });

  test("the counterion rule scores 0 before any filter: at most one counterion, of at most 5 heavy atoms", async () => {
    assert.equal(await reward(tagged("CC(=O)[O-].[Na+].[Na+]"), "valid_mol_eval!:!CC(=O)!:!molecule-completion"), 0);
    assert.equal(await reward(tagged("CCCCCCCCC(=O)[O-].[N+](C)(C)(C)CCCCCC"), "valid_mol_eval!:!CCCC!:!molecule-completion"), 0);
    assert.equal((await verify(tagged("CC(=O)[O-].[Na+]"), "valid_mol_eval!:!CC(=O)!:!molecule-completion")).status, 501);
  });

  test("valid_mol_eval: the answer whole or as the completion of the start; nothing that parses scores 0", async () => {
    assert.equal(await reward(tagged("O)C("), "valid_mol_eval!:!CC(=O)!:!molecule-completion"), 0);
    assert.equal(await reward(tagged("(C"), "valid_mol_eval!:!CC(=O)!:!molecule-completion"), 0, "neither the answer nor the start and the answer parse");
    assert.match((await verify(tagged("O"), "valid_mol_eval!:!CC(=O)!:!molecule-completion")).text, /valid_mol_eval needs/);
  });

  test("functional_group_eval: a wrong formula scores 0; a right one needs exmol and the filters; a bad spec scores 0", async () => {
    assert.equal(await reward(tagged("CCO"), "functional_group_eval!:!('C2H4O2', ['carboxylic acid'])!:!functional-group"), 0);
    const answer = await verify(tagged("CC(=O)O"), "functional_group_eval!:!('C2H4O2', ['carboxylic acid'])!:!functional-group");
    assert.equal(answer.status, 501);
    assert.match(answer.text, /exmol's get_functional_groups/);
    assert.equal(await reward(tagged("CC(=O)O"), "functional_group_eval!:!not a tuple!:!functional-group"), 0);
  });

  test("sol_eval: the constraint first (scaffold substructure, Tanimoto 0.7 within 20% heavy atoms), then the remote model", async () => {
    const scaffold = "sol_eval!:!('scaffold', 'CCCC', -0.5, 'increase')!:!oracle-solubility";
    assert.equal(await reward(tagged("OCCCO"), scaffold), 0, "no butane chain");
    assert.equal(await reward(tagged("CCCCO.O"), scaffold), 0, "one molecule only");
    assert.match((await verify(tagged("OCCCCO"), scaffold)).text, /sol_eval needs .*remote verifier server/);
    const similar = "sol_eval!:!('tanimoto', 'OCCc1ccccc1', -0.5, 'increase')!:!oracle-solubility";
    assert.equal(await reward(tagged("CCCCCCCCCCO"), similar), 0);
    assert.equal((await verify(tagged("OCCc1ccccc1"), similar)).status, 501);
    assert.match((await verify(tagged("CCO"), "sol_eval!:!('groups', ['alcohol'], -0.5, 'increase')!:!oracle-solubility")).text, /exmol/);
  });

  test("rxn_forward: the reaction's shape and molecules first, then the remote models", async () => {
    const solution = "rxn_forward!:!CCOC(C)=O!:!retro-synthesis";
    for (const text of ["CCO.CC(=O)O", "CCO.CC(=O)O>>>CCOC(C)=O", "CCO>>CCOC(C)=O", "CCO.CC(=O)O>>CCO", "CC(=O)OCC.O>>CCOC(C)=O", "CCO.C1CC>>CCOC(C)=O"]) {
      assert.equal(await reward(tagged(text), solution), 0, text);
    }
    const answer = await verify(tagged("CCO.CC(=O)O>[H+]>CCOC(C)=O"), solution);
    assert.equal(answer.status, 501);
    assert.match(answer.text, /rxn_forward needs ether0's remote verifier server/);
  });

  test("RDKit's molecular formula: C, H, then the rest; the net charge last", async () => {
    const formula = async (smiles: string) => molFormula((await molFromSmiles(smiles))!);
    assert.deepEqual(await Promise.all(["O", "[NH4+]", "CC(=O)[O-].[Na+]", "[2H]C", "[Cl-].[Cl-].[Ca+2]", "ClC(Cl)(Cl)Cl"].map(formula)), ["H2O", "H4N+", "C2H3NaO2", "CH4", "CaCl2", "CCl4"]);
  });
});

describe("ether0's remote verifier server, when ETHER0_REMOTES_API_BASE_URL names one", () => {
  // A stand-in for ether0-serve on loopback: purchasable = contains "C(=O)O" or is ethanol, the product of any
  // reaction is ethyl acetate, the solubility of a SMILES is -len/10.
  let remote: Server;
  const seen: { path: string; body: Item; authorization: string | undefined }[] = [];
  before(async () => {
    remote = createServer((req, res) => {
      let data = "";
      req.on("data", (chunk) => (data += chunk));
      req.on("end", () => {
        const body = JSON.parse(data) as Item;
        seen.push({ path: req.url!, body, authorization: req.headers.authorization });
        const answer =
          req.url === "/is_purchasable" ? Object.fromEntries((body.smiles as string[]).map((s) => [s, s.includes("C(=O)O") || s === "OCC"]))
          : req.url === "/translate" ? { product: "CCOC(C)=O" }
          : { mean: -String(body.smiles).length / 10 };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
    process.env.ETHER0_REMOTES_API_BASE_URL = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    process.env.ETHER0_REMOTES_API_TOKEN = "t0ken";
  });
  after(async () => {
    delete process.env.ETHER0_REMOTES_API_BASE_URL;
    delete process.env.ETHER0_REMOTES_API_TOKEN;
    await new Promise((resolve) => remote.close(resolve));
  });

  test("rxn_forward: purchasable reactants (or at most 4 heavy atoms) and the predicted product must match", async () => {
    const solution = "rxn_forward!:!CCOC(C)=O!:!retro-synthesis";
    assert.equal(await reward(tagged("OCC.CC(=O)O>[H+]>CCOC(C)=O"), solution), 1);
    assert.deepEqual(seen.slice(-2).map((call) => [call.path, call.authorization]), [["/is_purchasable", "Bearer t0ken"], ["/translate", "Bearer t0ken"]]);
    assert.deepEqual(seen.at(-2)!.body, { smiles: ["OCC", "CC(=O)O"] });
    assert.equal(await reward(tagged("CCCCCO.CC(=O)O>>"), solution), 0, "pentanol: 6 heavy atoms, not purchasable");
    assert.equal(await reward(tagged("CCO.CC(=O)O>>"), "rxn_forward!:!CCOC(=O)CC!:!retro-synthesis"), 0, "the predicted product is another ester");
  });

  test("sol_eval still needs the bloom filters, unless the answer is the reference molecule itself", async () => {
    assert.match((await verify(tagged("OCCCCO"), "sol_eval!:!('scaffold', 'CCCC', -0.5, 'increase')!:!oracle-solubility")).text, /bloom/);
    // -len("CCCC")/10 = -0.4: within 0.49 of -0.5.
    assert.equal(await reward(tagged("CCCC"), "sol_eval!:!('scaffold', 'CCCC', -0.5, 'increase')!:!oracle-solubility"), 1);
    assert.equal(await reward(tagged("CCCC"), "sol_eval!:!('scaffold', 'CCCC', -1.5, 'increase')!:!oracle-solubility"), 0);
  });
});

describe("validation", () => {
  test("a non-object verifier_metadata or a non-string problem_type is a 422", async () => {
    assert.equal((await env.post("/verify", { responses_create_params: params, verifier_metadata: "x", response: responseWith([assistantMessage("x")]) })).status, 422);
    assert.equal((await verify(tagged("CCO"), "str_eval!:!CCO!:!p", { problem_type: 3 })).status, 422);
  });
});

describe("the data", () => {
  test("the example rows are run requests whose ideal answer scores 1.0", async () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) {
      const answer = await env.post("/verify", { ...row, response: responseWith([assistantMessage(tagged(row.verifier_metadata.ideal))]) });
      assert.equal(answer.json<Item>().reward, 1, row.verifier_metadata.id);
    }
  });

  test("every verifier case scores as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 20 }));
});
