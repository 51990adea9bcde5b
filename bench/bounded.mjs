// Bounded work on crafted inputs (issue 23): wall time and peak RSS (GNU time) of the CLI on generated files,
// next to Node's baseline (`tensorfile --help`). Writes a Markdown table to bench/results/bounded.md.
//
//   node bench/bounded.mjs [--tensors 1000000] [--npz-gib 2] [--only safetensors,bw2l,npz,spraak]
//
// Files (generated into the system temp folder, deleted after):
//   safetensors  --tensors empty F32 tensors (a ~59 MB header): inspect, verify, convert -> .safetensors
//   bw2l         --tensors empty `data` sections of one name (one warning each): inspect, verify
//   npz          one honestly declared deflated member of --npz-gib GiB of zeros (a ~2 MB file per GiB): verify, convert
//   spraak       COMPRESS gzip of 8 members of 64 MiB each (a multi-member stream): verify
// Needs `npm run build` first.
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { constants, crc32, createDeflateRaw, gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist/cli.js");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const tensors = Number(option("--tensors", 1_000_000));
const npzGiB = Number(option("--npz-gib", 2));
const only = option("--only", "safetensors,bw2l,npz,spraak").split(",");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-bounded-"));

/** Wall seconds, peak RSS (MiB), exit code and last stderr line of `node dist/cli.js ...cliArgs`. */
function run(cliArgs) {
  const started = process.hrtime.bigint();
  const result = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, cli, ...cliArgs], { encoding: "utf8", maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const lines = result.stderr.trim().split("\n");
  return { seconds, mib: Number(lines.at(-1)) / 1024, code: result.status, error: lines.length > 1 ? lines.at(-2) : "" };
}

function safetensorsFile(path, n) {
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(`"t${i}":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`);
  let json = `{${parts.join(",")}}`;
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  writeFileSync(path, Buffer.concat([head, Buffer.from(json)]));
}

function bw2lSections(path, n) {
  const one = Buffer.concat([Buffer.from([1]), Buffer.from("s"), Buffer.from([4]), Buffer.from("data"), Buffer.alloc(16)]);
  const head = Buffer.concat([Buffer.from("BW2L"), Buffer.from([2, 1]), Buffer.from("m"), Buffer.alloc(8)]);
  head.writeBigUInt64LE(BigInt(n), head.length - 8);
  const body = Buffer.alloc(one.length * n);
  for (let i = 0; i < n; i++) one.copy(body, i * one.length);
  writeFileSync(path, Buffer.concat([head, body]));
}

/** An npz of one deflated float32 member `w.npy` of `bytes` bytes of zeros (the .npy header declares it honestly). */
async function npzBomb(path, bytes) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${bytes / 4},), }`;
  header += " ".repeat(63 - ((10 + header.length) % 64)) + "\n";
  const npyHead = Buffer.concat([Buffer.from([0x93]), Buffer.from("NUMPY"), Buffer.from([1, 0, header.length & 0xff, header.length >> 8]), Buffer.from(header)]);
  const size = npyHead.length + bytes;
  const zeros = Buffer.alloc(1 << 24);
  let crc = crc32(npyHead);
  const chunks = [];
  const deflate = createDeflateRaw({ level: 1, strategy: constants.Z_DEFAULT_STRATEGY });
  deflate.on("data", (c) => chunks.push(c));
  const done = new Promise((ok) => deflate.on("end", ok));
  deflate.write(npyHead);
  for (let left = bytes; left > 0; left -= zeros.length) {
    const piece = left >= zeros.length ? zeros : zeros.subarray(0, left);
    crc = crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((ok) => deflate.once("drain", ok));
  }
  deflate.end();
  await done;
  const data = Buffer.concat(chunks);
  const name = Buffer.from("w.npy");
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc >>> 0, 14); local.writeUInt32LE(data.length, 18); local.writeUInt32LE(size, 22); local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16); central.writeUInt32LE(data.length, 20); central.writeUInt32LE(size, 24); central.writeUInt16LE(name.length, 28);
  const directoryAt = local.length + name.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(1, 8); end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12); end.writeUInt32LE(directoryAt, 16);
  writeFileSync(path, Buffer.concat([local, name, data, central, name, end]));
}

function spraakMembers(path, members, memberBytes) {
  const header = Buffer.from(".spr\nFORMAT\tBIN01\nTYPE\tU8\nCOMPRESS\tgzip\n#\n");
  const member = gzipSync(Buffer.alloc(memberBytes), { level: 1 });
  const fd = openSync(path, "w");
  writeSync(fd, header);
  for (let i = 0; i < members; i++) writeSync(fd, member);
  closeSync(fd);
}

const baseline = run(["--help"]).mib;
const rows = [];
const show = (label, file, command, r) => {
  const row = `| ${label} | ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB | ${command} | ${r.seconds.toFixed(2)} s | ${Math.round(r.mib - baseline)} MiB | ${r.code}${r.code === 0 ? "" : `: ${r.error.slice(0, 80)}`} |`;
  rows.push(row);
  console.log(row);
};

if (only.includes("safetensors")) {
  const path = join(dir, "many.safetensors");
  safetensorsFile(path, tensors);
  for (const command of ["inspect", "verify"]) show(`safetensors, ${tensors} empty tensors`, path, command, run([command, path]));
  show(`safetensors, ${tensors} empty tensors`, path, "convert", run(["convert", path, join(dir, "out.safetensors"), "--force"]));
  rmSync(path);
}
if (only.includes("bw2l")) {
  const path = join(dir, "many.b2l");
  bw2lSections(path, tensors);
  for (const command of ["inspect", "verify"]) show(`bw2l, ${tensors} empty sections of one name`, path, command, run([command, path]));
  rmSync(path);
}
if (only.includes("npz")) {
  const path = join(dir, "bomb.npz");
  await npzBomb(path, npzGiB * 2 ** 30);
  show(`npz, one deflated ${npzGiB} GiB member`, path, "verify", run(["verify", path]));
  show(`npz, one deflated ${npzGiB} GiB member`, path, "convert", run(["convert", path, join(dir, "bomb.safetensors"), "--force"]));
  rmSync(join(dir, "bomb.safetensors"), { force: true });
  rmSync(path);
}
if (only.includes("spraak")) {
  const path = join(dir, "members.spr");
  spraakMembers(path, 8, 64 << 20);
  show("spraak COMPRESS gzip, 8 members of 64 MiB", path, "verify", run(["verify", path]));
  rmSync(path);
}
rmSync(dir, { recursive: true, force: true });
const table = [
  `Bounded work on crafted inputs: wall time and peak RSS above Node's baseline (${Math.round(baseline)} MiB for \`tensorfile --help\`), ${new Date().toISOString().slice(0, 10)}, commit ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()}:`,
  "",
  "| file | size | command | time | peak RSS above baseline | exit |",
  "|---|---:|---|---:|---:|---|",
  ...rows,
].join("\n");
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/bounded.md"), `${table}\n`);
console.log(`\n${table}`);
