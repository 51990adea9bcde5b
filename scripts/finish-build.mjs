// After tsc: make the CLI executable (npm links dist/cli.js as the `tensorfile` bin).
import { chmodSync, existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (existsSync(cli)) chmodSync(cli, 0o755);
