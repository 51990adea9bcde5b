// Deno smoke test: runs test/runtimes/deno-smoke.mjs under the `deno` npm package with no permissions.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const denoBin = resolve(dirname(require.resolve("deno/package.json")), "bin.cjs");
const result = spawnSync(process.execPath, [denoBin, "run", "--no-prompt", "--node-modules-dir=manual", "test/runtimes/deno-smoke.mjs"], {
  cwd: root, stdio: "inherit", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
});
if (result.status !== 0) {
  console.error("deno smoke test failed");
  process.exit(1);
}
