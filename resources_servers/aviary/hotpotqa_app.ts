// NeMo Gym's hotpotqa_app.py (HotPotQAResourcesServer): not ported yet. aviary's HotPotQAEnv (Wikipedia search /
// lookup / submit_answer, SQuAD-style answer normalisation and F1) needs the search-backend interface being built
// on branch h/search; until it is merged and the environment written on it, a config naming it fails to start.
import { refusedAviaryEntrypoint } from "../../src/ports/aviary/resources-server.ts";

export default refusedAviaryEntrypoint(
  "HotPotQAResourcesServer",
  "hotpotqa_app.py",
  "aviary's HotPotQA environment (Wikipedia search/lookup through a search backend, answer normalisation and scoring) is not written yet in this port",
);
