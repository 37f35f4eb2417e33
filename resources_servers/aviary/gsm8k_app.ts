// NeMo Gym's gsm8k_app.py: aviary's GSM8K environment (calculator + submit_answer) over GSM8kDataset's train split.
export { default } from "./gsm8k.ts";
