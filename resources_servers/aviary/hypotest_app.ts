// NeMo Gym's hypotest_app.py (HypotestResourcesServer): not ported. A config naming it fails to start, saying why.
import { refusedAviaryEntrypoint } from "../../src/ports/aviary/resources-server.ts";

export default refusedAviaryEntrypoint("HypotestResourcesServer", "hypotest_app.py", "BixBench-Hypothesis needs EdisonScientific's hypotest package (a Python REPL sandbox under enroot or docker, an LLM rubric judge); none of it runs in this port");
