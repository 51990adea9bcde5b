// Jazzer.js target: fromUrl against a stand-in fetch scripted by the input (laws: ../url-laws.mjs): fuzzed
// statuses, Content-Range / Content-Length headers, bodies (short, endless, stalled, failing). Run:
// npm run fuzz -- url --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("url");
