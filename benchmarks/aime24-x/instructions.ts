// The instruction aime24-x and aime25-x bake into each question (NeMo Skills' generic/math prompt and its
// multilingual versions, as NeMo Gym's aime2{4,5}_x_utils.py carry them). Kept word for word: scores are only
// comparable with the same prompt.
export const SUPPORTED_LANGUAGES = ["de", "es", "fr", "ja"] as const;

export const EN_INSTRUCTION = String.raw`Solve the following math problem. Make sure to put the answer (and only answer) inside \boxed{}.`;

export const MATH_INSTRUCTIONS: Readonly<Record<string, string>> = {
  de: String.raw`Lösen Sie das folgende Mathematikproblem. Stellen Sie sicher, dass Sie die Antwort (und nur die Antwort) in \boxed{} setzen.`,
  es: String.raw`Resuelve el siguiente problema matemático. Asegúrate de poner la respuesta (y solo la respuesta) dentro de \boxed{}.`,
  fr: String.raw`Résolvez le problème mathématique suivant. Assurez-vous de mettre la réponse (et seulement la réponse) dans \boxed{}.`,
  ja: String.raw`以下の数学問題を解いてください。答え（答えのみ）を\boxed{}の中に入れてください。`,
};
