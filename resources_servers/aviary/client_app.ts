// NeMo Gym's client_app.py (AviaryClientResourcesServer): not ported. A config naming it fails to start, saying why.
import { refusedAviaryEntrypoint } from "../../src/ports/aviary/resources-server.ts";

export default refusedAviaryEntrypoint("AviaryClientResourcesServer", "client_app.py", "a proxy to a remote aviary TaskDatasetServer (aviary's HTTP client protocol and its dataset server are not ported; run the environment here instead: gsm8k_app.py or hotpotqa_app.py)");
