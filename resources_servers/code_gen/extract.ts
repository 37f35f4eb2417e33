// The program in a model's answer (LiveCodeBench's OpenAI-chat style): the lines strictly between the last two lines
// that contain ```; "" when fewer than two such lines exist (a bare program without fences is no answer).
export function extractCode(answer: string): string {
  const lines = answer.split("\n");
  const fences = lines.flatMap((line, index) => (line.includes("```") ? [index] : []));
  if (fences.length < 2) return "";
  return lines.slice(fences.at(-2)! + 1, fences.at(-1)!).join("\n");
}
