// NeMo Gym's app.py is the abstract AviaryResourcesServer; its configs run an entrypoint each (gsm8k_app.py,
// hotpotqa_app.py, …). `app.ts` serves GSM8K, as NeMo Gym's aviary.yaml does (entrypoint: gsm8k_app.py).
export { default } from "./gsm8k.ts";
