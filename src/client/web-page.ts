// One web page's HTML, fetched as trafilatura.fetch_url fetches it for NeMo Gym's browse tools: GET, at most 2
// redirects, 30 s per request, only a 200 whose body is 10 bytes to 20 MB counts; anything else — a 404, a refused
// connection, a timeout, a body too large — is no page (`null`), which the tool turns into its own text for the model.
// A browsed page is the outside world the agent explores, not a server of the graph: its failure is an observation.
import { Agent, request } from "undici";

export interface WebPageOptions {
  /** Per request (trafilatura's TIMEOUT). */
  timeoutMs?: number;
  maxRedirects?: number;
  maxBytes?: number;
  signal?: AbortSignal;
  /** Where requests go (tests: loopback). */
  dispatcher?: Agent;
}

const MIN_BYTES = 10;
const USER_AGENT = "Mozilla/5.0 (compatible; nemo-gym-ts browse)";
let sharedAgent: Agent | undefined;
const agent = () => (sharedAgent ??= new Agent({ connect: { timeout: 10_000 }, connections: 16 }));

/** The page's text, decoded by its charset (UTF-8 when none or unknown); null when there is no page to read. */
export async function fetchWebPage(url: string, options: WebPageOptions = {}): Promise<string | null> {
  const { timeoutMs = 30_000, maxRedirects = 2, maxBytes = 20_000_000, signal } = options;
  let target = url;
  for (let redirects = 0; ; redirects++) {
    let parsed: URL;
    try {
      parsed = new URL(target);
    } catch {
      return null;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await request(parsed, {
        method: "GET",
        headers: { "user-agent": USER_AGENT, accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        dispatcher: options.dispatcher ?? agent(),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === "string") {
        await response.body.dump();
        if (redirects >= maxRedirects) return null;
        target = new URL(location, parsed).toString();
        continue;
      }
      if (response.statusCode !== 200) {
        await response.body.dump();
        return null;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          response.body.destroy();
          return null;
        }
        chunks.push(chunk as Buffer);
      }
      if (size < MIN_BYTES) return null;
      return decode(Buffer.concat(chunks), response.headers["content-type"]);
    } catch (error) {
      // The caller hung up: that is not the page's answer.
      if (signal?.aborted) throw error;
      return null;
    }
  }
}

function decode(body: Buffer, contentType: string | string[] | undefined): string {
  const charset = /charset=["']?([\w.:-]+)/i.exec(String(contentType ?? ""))?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
