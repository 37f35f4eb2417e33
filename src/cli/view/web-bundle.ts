// The page's script and style, bundled from src/cli/view/app/ by esbuild (the project's TypeScript toolchain
// already) when `gym view` starts, in memory: nothing built is committed or left on disk, a fresh clone serves the
// page after `npm ci`, and a change to the app is served on the next start. Preact is bundled in (a few kB).
import { build } from "esbuild";
import { join } from "node:path";

export interface WebBundle {
  script: string;
  style: string;
}

const APP_DIR = join(import.meta.dirname, "app");

let bundled: Promise<WebBundle> | undefined;

/** Built once per process (~0.1 s), then shared by every view server of the process. */
export function webBundle(): Promise<WebBundle> {
  bundled ??= buildBundle().catch((error) => {
    bundled = undefined;
    throw error;
  });
  return bundled;
}

async function buildBundle(): Promise<WebBundle> {
  const result = await build({
    entryPoints: [join(APP_DIR, "main.tsx")],
    bundle: true,
    write: false,
    outdir: "/gym-view",
    format: "esm",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: "silent",
    // The app's own tsconfig (DOM types, preact's JSX) is for the type check; the bundle needs none of it.
    tsconfigRaw: {},
  });
  const text = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? "";
  return { script: text(".js"), style: text(".css") };
}

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gym view</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/app.js"></script>
</body>
</html>
`;
