// ether0's remote verifier server (ether0-serve), as ether0.clients calls it: POST {base}/compute_solubility,
// /is_purchasable and /translate with `Authorization: Bearer <token>`, from the environment variables ether0 reads,
// ETHER0_REMOTES_API_BASE_URL and ETHER0_REMOTES_API_TOKEN. A call is tried up to 3 times, 1 s apart, when it cannot
// connect, times out, or gets a server error other than 501. Without a base URL there is no server: undefined.
import { request } from "undici";
import { HttpError } from "../../src/protocol/errors.ts";

const COLD_START_TIMEOUT_MS = 180_000;
const ATTEMPTS = 3;

/** The server's base URL, when one is configured. */
export const remotesBaseUrl = (): string | undefined => process.env.ETHER0_REMOTES_API_BASE_URL || undefined;

interface Answer {
  ok: boolean;
  status: number;
  body: unknown;
  text: string;
}

async function post(path: string, payload: unknown): Promise<Answer> {
  const base = remotesBaseUrl()!;
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 1000));
    try {
      const response = await request(`${base}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${process.env.ETHER0_REMOTES_API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(payload),
        headersTimeout: COLD_START_TIMEOUT_MS,
        bodyTimeout: COLD_START_TIMEOUT_MS,
      });
      const text = await response.body.text();
      const answer = { ok: response.statusCode >= 200 && response.statusCode < 300, status: response.statusCode, text, body: undefined as unknown };
      if (answer.ok) answer.body = JSON.parse(text);
      // A redirect or server error is retried, except the server's own 501 (it will not answer otherwise).
      if (!answer.ok && response.statusCode >= 500 && response.statusCode !== 501 && attempt < ATTEMPTS) continue;
      return answer;
    } catch (error) {
      lastError = error;
    }
  }
  // NeMo Gym scores this 0.0 (its reward functions swallow the exception): here it is the gateway error it is.
  throw new HttpError(502, `ether0: the remote verifier server at ${base} did not answer ${path} after ${ATTEMPTS} attempts: ${(lastError as Error)?.message ?? "no answer"}`);
}

/** fetch_solubility: the predicted log solubility, or undefined when the server reports an error. */
export async function fetchSolubility(smiles: string): Promise<number | undefined> {
  const answer = await post("/compute_solubility", { smiles });
  if (!answer.ok) return undefined;
  const body = answer.body as Record<string, unknown>;
  // No `mean` (ether0's KeyError) or a non-number one (its TypeError) scores 0 there too.
  return typeof body === "object" && body !== null && !("error" in body) && typeof body.mean === "number" ? body.mean : undefined;
}

/** fetch_purchasable: SMILES → purchasable, empty when the call failed. */
export async function fetchPurchasable(smiles: string[]): Promise<Record<string, unknown>> {
  const answer = await post("/is_purchasable", { smiles });
  const body = answer.body;
  return answer.ok && typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** fetch_forward_rxn: the predicted product, or undefined when the call failed. */
export async function fetchForwardReaction(reaction: string): Promise<string | undefined> {
  const answer = await post("/translate", { reaction });
  if (!answer.ok) return undefined;
  return (answer.body as Record<string, unknown>).product as string;
}
