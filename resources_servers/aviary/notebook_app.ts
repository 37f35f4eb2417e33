// NeMo Gym's notebook_app.py (BixBenchResourcesServer): not ported. A config naming it fails to start, saying why.
import { refusedAviaryEntrypoint } from "../../src/ports/aviary/resources-server.ts";

export default refusedAviaryEntrypoint("BixBenchResourcesServer", "notebook_app.py", "BixBench needs aviary's Jupyter NBEnvironment in a docker container, the BixBench capsules from Hugging Face and an LLM answer judge (gpt-5-mini); none of it runs in this port");
