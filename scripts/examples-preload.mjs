// Preloaded by scripts/check-examples.mjs into every example (node --expose-gc --import). Two checks that an
// example closes what it opens:
// - every file handle opened through node:fs/promises is tracked; one still open when the example's work is done
//   is reported on standard error (which fails the check);
// - then garbage is collected once, so a handle the example dropped without closing is closed by the collector
//   and Node prints its DEP0137 warning (which fails the check too).
import { createRequire, syncBuiltinESMExports } from "node:module";

const require = createRequire(import.meta.url);
const fsPromises = require("node:fs/promises");
const openHandles = new Map();
const open = fsPromises.open;
fsPromises.open = async function trackedOpen(path, ...rest) {
  const handle = await open.call(this, path, ...rest);
  openHandles.set(handle, String(path));
  const close = handle.close;
  handle.close = function trackedClose(...args) {
    openHandles.delete(handle);
    return close.apply(this, args);
  };
  return handle;
};
syncBuiltinESMExports();

let checked = false;
process.on("beforeExit", () => {
  if (checked) return;
  checked = true;
  for (const path of openHandles.values()) process.stderr.write(`example left a file handle open: ${path} (call close())\n`);
  if (typeof globalThis.gc === "function") {
    globalThis.gc();
    setTimeout(() => globalThis.gc(), 20);
    setTimeout(() => {}, 100);
  }
});
