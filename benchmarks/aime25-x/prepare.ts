// AIME 2025 in German, Spanish, French and Japanese (NeMo Gym's benchmarks/aime25-x/prepare.py; same
// conversion and instructions as aime24-x).
import { multilingualMath } from "../aime24-x/multilingual-math.ts";

export default multilingualMath("nvidia/Nemotron-Multilinugual-Eval-AIME25");
