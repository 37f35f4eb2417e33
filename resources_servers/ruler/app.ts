// RULER (v1): the reference strings of a long-context retrieval task found in the answer, as NeMo Gym's
// RulerResourcesServer scores them (NeMo-Skills' ruler.py helpers):
// - the prediction is the output text, stripped;
// - subsets qa_1 and qa_2: 1.0 when any of `outputs` is a case-insensitive substring of it, else 0.0;
// - every other subset: the share of `outputs` that are (src/ports/long-context/string-match.ts);
// - the reward is also reported under the subset's own field (cwe … vt; the others null). A subset outside those 13
//   names is only the reward (NeMo Gym's response model drops the unknown keyword).
// NeMo Gym divides by zero (its 500) on an empty `outputs`; here that is a 422 naming it. A subset naming one of the
// response's other fields is a TypeError there (a keyword given twice); a 422 here.
import { z } from "zod";
import { resourcesServer, RequestValidationError } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/index.ts";
import { rulerMatchAll, rulerMatchPart } from "../../src/ports/long-context/index.ts";

/** RulerVerifyResponse's per-subset fields, in its order. */
const SUBSETS = ["cwe", "fwe", "niah_multikey_1", "niah_multikey_2", "niah_multikey_3", "niah_multiquery", "niah_multivalue", "niah_single_1", "niah_single_2", "niah_single_3", "qa_1", "qa_2", "vt"];
const RESPONSE_FIELDS = ["responses_create_params", "response", "reward", "outputs", "length", "subset"];

const invalid = (field: string, msg: string, input: unknown) => new RequestValidationError([{ type: "value_error", loc: ["body", field], msg: `Value error, ${msg}`, input }]);

export default resourcesServer({
  name: "RulerResourcesServer",
  tools: {},
  verify: {
    input: z.object({ outputs: z.array(z.string()), length: z.number().int(), subset: z.string() }),
    run(_state, { response, outputs, length, subset }) {
      if (outputs.length === 0) throw invalid("outputs", "outputs is empty: there is no reference to score against", outputs);
      if (RESPONSE_FIELDS.includes(subset)) throw invalid("subset", `subset '${subset}' names a field of the verify response`, subset);
      const prediction = pythonStrip(responseOutputText(response));
      const reward = subset === "qa_1" || subset === "qa_2" ? rulerMatchPart(prediction, outputs) : rulerMatchAll(prediction, outputs);
      return { reward, outputs, length, subset, ...Object.fromEntries(SUBSETS.map((name) => [name, name === subset ? reward : null])) };
    },
  },
  floatFields: SUBSETS,
});
