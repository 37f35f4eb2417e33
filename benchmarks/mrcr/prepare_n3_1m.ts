// MRCR for a 1M-token context (NeMo Gym's benchmarks/mrcr/prepare_n3_1m.py): the same rows, counted with the
// Nemotron-3-Super Hugging Face tokenizer and capped at 1048576 tokens. That tokenizer is not ported
// (src/rollouts/prepare/tokens.ts), so this preparation is refused in one line before any download.
import { mrcr } from "./prepare.ts";

export default mrcr({ tokenizer_name: "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", max_context_tokens: 1048576 });
