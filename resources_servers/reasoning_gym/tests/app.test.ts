// reasoning_gym's verify (through fastify inject): the answer read from the response text, the task's scorer chosen by
// metadata.source_dataset, NeMo Gym's response fields, its error behaviour, and the authored data and cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, type InjectedServer, injectServer, type Item, readRows, responseWith } from "../../../src/testing/index.ts";
import { scoreAnswer } from "../../../src/ports/reasoning-gym/index.ts";
import reasoningGym from "../app.ts";

const dataDir = join(import.meta.dirname, "../data");
const rows = readRows(join(dataDir, "example.jsonl"));

let env: InjectedServer;
before(async () => (env = await injectServer(reasoningGym, {}, { instanceName: "reasoning_gym" })));
after(() => env.close());

const message = (content: unknown): Item => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content });
const text = (value: string) => ({ type: "output_text", text: value, annotations: [] });
const params = { input: [{ role: "user", content: "question" }] };

const knights = { question: "Who is a hero and who is a villain?", answer: "Ava is a hero, and Noah is a villain.", metadata: { source_dataset: "knights_knaves", source_index: 0 } };

const verify = (fields: Record<string, unknown>, output: Item[]) =>
  env.post("/verify", { responses_create_params: params, response: responseWith(output), ...fields });
const verified = async (fields: Record<string, unknown>, output: Item[]) => {
  const answer = await verify(fields, output);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
};

describe("the verify response", () => {
  test("has NeMo Gym's fields in order, floats written as Python writes them, and no row fields echoed", async () => {
    const answer = await verify(knights, [message([text("<answer>Ava is a hero, and Noah is a villain.</answer>")])]);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "task_name", "score", "extracted_answer"]);
    assert.match(answer.text, /"reward":1\.0,"task_name":"knights_knaves","score":1\.0,"extracted_answer":"Ava is a hero, and Noah is a villain\."}$/);
  });

  test("a partial score is the reward", async () => {
    const body = await verified(knights, [message([text("<answer>Ava is a villain, and Noah is a villain.</answer>")])]);
    assert.equal(body.reward, 0.3 + 0.7 / 2);
    assert.equal(body.score, body.reward);
  });
});

describe("the answer read from the response", () => {
  test("the output_text parts of every message are joined with nothing between; reasoning, refusals and tool calls are ignored", async () => {
    const output = [
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "<answer>wrong</answer>" }] },
      message([text("<answer>Ava is a hero, "), { type: "refusal", refusal: "<answer>x</answer>" }]),
      { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
      message([text("and Noah is a villain.</answer>")]),
    ];
    const body = await verified(knights, output);
    assert.equal(body.extracted_answer, "Ava is a hero, and Noah is a villain.");
    assert.equal(body.reward, 1);
  });

  test("a message whose content is a plain string counts too", async () => {
    const body = await verified(knights, [{ type: "message", role: "assistant", content: "\\boxed{Ava is a hero, and Noah is a villain}" }]);
    assert.equal(body.extracted_answer, "Ava is a hero, and Noah is a villain");
    assert.equal(body.reward, 1);
  });

  test("without tags the whole text, stripped, is the answer", async () => {
    const body = await verified({ ...knights, answer: "56", metadata: { source_dataset: "chain_sum" } }, [message([text("\n\n56\n")])]);
    assert.equal(body.extracted_answer, "56");
    assert.equal(body.reward, 1);
  });

  test("no message at all is the empty answer", async () => {
    const body = await verified(knights, []);
    assert.equal(body.extracted_answer, "");
    assert.equal(body.reward, 0);
  });
});

describe("errors", () => {
  test("a scorer that raises scores 0.0, as NeMo Gym does", async () => {
    assert.throws(() => scoreAnswer("prime_factorization", "2 x 3", { question: "q", answer: "2 × 3", metadata: {} }));
    const body = await verified({ question: "q", answer: "2 × 3", metadata: { source_dataset: "prime_factorization" } }, [message([text("<answer>2 x 3</answer>")])]);
    assert.equal(body.reward, 0);
    assert.equal(body.task_name, "prime_factorization");
  });

  test("a null oracle is accepted (Optional[str]) and scored by the task's rules", async () => {
    const body = await verified({ question: "q", answer: null, metadata: { source_dataset: "leg_counting" } }, [message([text("30")])]);
    assert.equal(body.reward, 0);
  });

  test("no task name in metadata is NeMo Gym's ValueError: a 500", async () => {
    for (const metadata of [{}, { source_dataset: "" }, { source_dataset: null }]) {
      const answer = await verify({ ...knights, metadata }, [message([text("x")])]);
      assert.equal(answer.status, 500);
      assert.match(answer.text, /ValueError\(.*No task name found in metadata/);
    }
  });

  test("a reasoning-gym task without a scorer here is a 501 naming it (NeMo Gym would score it)", async () => {
    // polynomial_equations needs SymPy: not ported.
    const answer = await verify({ ...knights, metadata: { source_dataset: "polynomial_equations" } }, [message([text("x")])]);
    assert.equal(answer.status, 501);
    assert.match(answer.text, /'polynomial_equations' \(metadata\.source_dataset\) has no scorer ported/);
  });

  test("a name reasoning-gym does not know is a 422 too (NeMo Gym scores it 0.0)", async () => {
    const answer = await verify({ ...knights, metadata: { source_dataset: "not_a_task" } }, [message([text("x")])]);
    assert.equal(answer.status, 422);
    assert.match(answer.text, /'not_a_task' \(metadata\.source_dataset\) is not a reasoning-gym task \(0\.1\.19 to 0\.1\.25\)/);
  });

  test("a missing question, answer or metadata is a 422 naming the field", async () => {
    for (const field of ["question", "answer", "metadata"]) {
      const { [field]: _dropped, ...rest } = knights as Record<string, unknown>;
      const answer = await verify(rest, [message([text("x")])]);
      assert.equal(answer.status, 422, field);
      assert.ok(answer.json<{ detail: { loc: string[] }[] }>().detail.some((d) => d.loc.join(".") === `body.${field}`), answer.text);
    }
  });
});

describe("the authored data", () => {
  test("example rows are run requests whose oracle answer scores 1.0", async () => {
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) {
      const body = await verified(row, [message([text(`<answer>${row.answer}</answer>`)])]);
      assert.equal(body.reward, 1, String(row.metadata.source_dataset));
    }
  });

  test("every verifier case gets its expected reward", async () => {
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"));
  });
});
