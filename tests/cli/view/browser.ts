// One headless Chromium per test file, driven by playwright-core: Debian's `chromium` package (scripts/ensure-deps.js
// installs it when it can), a fresh profile, nothing in the background that reaches the network. A machine without
// the browser skips the browser tests with a message saying how to get it.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import sharp from "sharp";

export const CHROMIUM = process.env.NEMO_GYM_CHROMIUM ?? "/usr/bin/chromium";

/** A `skip` option for node:test: the reason, when there is no browser here. */
export const browserSkip: string | false = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}: apt-get install -y chromium (npm test installs it when run as root)`;

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface Browser {
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "gym-view-chromium-"));
  // A persistent context is how playwright takes a --user-data-dir: here a fresh, empty one per launch.
  const context: BrowserContext = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport, timeout: 20_000 });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  return {
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface Screenshot {
  width: number;
  height: number;
  /** Distinct colours in the image (a blank or failed page has one or two). */
  colours: number;
  /** The [r, g, b] at a point in CSS pixels (device scale 1). */
  pixel(x: number, y: number): [number, number, number];
}

/** A PNG decoded for checks: its size, how many colours it has, its pixels. */
export async function readScreenshot(png: Buffer): Promise<Screenshot> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += 3) colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
  return {
    width: info.width,
    height: info.height,
    colours: colours.size,
    pixel: (x, y) => {
      const at = (Math.round(y) * info.width + Math.round(x)) * 3;
      return [data[at]!, data[at + 1]!, data[at + 2]!];
    },
  };
}

/** `#rrggbb` as [r, g, b]. */
export const rgb = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
