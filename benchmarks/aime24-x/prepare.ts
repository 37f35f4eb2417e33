// AIME 2024 in German, Spanish, French and Japanese (NeMo Gym's benchmarks/aime24-x/prepare.py).
import { multilingualMath } from "./multilingual-math.ts";

export default multilingualMath("nvidia/Nemotron-Multilinugual-Eval-AIME24");
