// `node --import ./bin/ts-register.js …`: registers bin/ts-hooks.js (TypeScript through esbuild, cached on disk).
// GYM_TS_LOADER=tsx registers tsx instead (see ts-hooks.js for when that matters).
import { createRequire, register } from "node:module";

if (process.env.GYM_TS_LOADER === "tsx") {
  const { register: registerTsx } = await import("tsx/esm/api");
  registerTsx();
} else {
  // Checked here, on the main thread: a hook that fails to load on the hooks thread is an uncaught crash, not an
  // error `gym` could turn into "run npm ci". (Inline source maps are not enabled: parsing them costs every start.)
  try {
    createRequire(import.meta.url).resolve("esbuild/package.json");
  } catch (error) {
    throw Object.assign(new Error(`esbuild is not installed (${error.message.split("\n")[0]})`), { code: "ERR_MODULE_NOT_FOUND" });
  }
  register("./ts-hooks.js", import.meta.url);
}
