// Browser test of subgraphs expanded in place (issue 36), in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core) on the built dist/web/index.html served over HTTP here, at 1366×768 and at 390×844 (a phone), on
// the real PyTorch export silero_vad_v5.onnx (devDependency @ricky0123/vad-web: an If_0 whose two branches hold 56
// boxes each):
//  - select If_0, press "Expand": the branches' boxes appear in place (as many as the branch panels count, one frame
//    per branch), the SVG export holds them (one <g><title> per box) and the frames, a nested box that reads the
//    graph's `input` lists it among its inputs, and the URL keeps the expansion (x=If_0);
//  - a nested If's branch opens as its own view under the branch holding it (two sg= steps);
//  - a link with x=If_0 reopens the graph expanded; a nested If expands inside its frame; "Collapse" on If_0 folds
//    both and restores the graph as it was.
// The layout time of the expanded graph is printed (never asserted). Exits 1 on failure.
// Run with `node test/runtimes/inspector-expand.mjs` after `npm run build`.
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { checkCounter, executablePath, requireBuilt, root, startPageServer } from "./browser-setup.mjs";

requireBuilt("inspector expand test");
const counts = checkCounter();
const { check } = counts;
const silero = join(root, "node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx");
if (!existsSync(silero)) {
  console.log(`inspector expand test: skipped, ${silero} not found (npm ci)`);
  process.exit(0);
}

const server = await startPageServer({
  fileAt: (pathname) => (pathname === "/files/silero_vad_v5.onnx" ? silero : undefined),
});
const { base } = server;

const graphData = (page) => page.evaluate(() => ({ ...document.querySelector("#graph").dataset }));
const laidOut = (page, frames) =>
  page.waitForFunction((wanted) => { const d = document.querySelector("#graph")?.dataset; return d && d.engine && d.frames === wanted; }, String(frames), { timeout: 60_000 });
function watch(page) {
  const problems = [];
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  return problems;
}
async function selectNode(page, name) {
  await page.fill("#graph-search", `"${name}"`);
  await page.waitForFunction((wanted) => document.querySelector("#graph")?.dataset.selected === wanted, name, { timeout: 10_000 }).catch(() => {});
}
async function noSidewaysScroll(page, where) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth), innerWidth: window.innerWidth }));
  check(scrollWidth <= innerWidth, `${where}: no sideways scroll (${scrollWidth} px in ${innerWidth})`);
}

const timings = [];
const viewports = [
  { name: "1366×768", width: 1366, height: 768 },
  { name: "390×844", width: 390, height: 844, isMobile: true, hasTouch: true },
];
const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
try {
  for (const viewport of viewports) {
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, isMobile: viewport.isMobile ?? false, hasTouch: viewport.hasTouch ?? false, acceptDownloads: true });
    const where = `${viewport.name}, silero_vad_v5.onnx`;
    let page = await context.newPage();
    let problems = watch(page);
    await page.goto(base);
    await page.setInputFiles("#open-file", silero);
    await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
    await page.click('[data-view="graph"]');
    await laidOut(page, 0);
    const before = await graphData(page);
    await selectNode(page, "If_0");
    // the branches' box counts, as the node panel gives them ("open then_branch (56 nodes)")
    const branchBoxes = await page.evaluate(() => [...document.querySelectorAll("#graph-side button")].map((b) => /^open (\S+) \((\d+) nodes\)$/.exec(b.textContent ?? "")).filter((m) => m).map((m) => [m[1], Number(m[2])]));
    const nested = branchBoxes.reduce((sum, [, n]) => sum + n, 0);
    check(branchBoxes.length === 2 && nested > 50, `${where}: If_0's panel lists its two branches (${JSON.stringify(branchBoxes)})`);
    const expand = page.getByRole("button", { name: "Expand", exact: true });
    check((await expand.count()) === 1, `${where}: one control named "Expand" for the selected If`);
    await expand.click();
    await laidOut(page, 2);
    const open = await graphData(page);
    timings.push(`${where}: expanded layout ${open.layoutMs} ms (${open.nodes} boxes, engine ${open.engine})`);
    check(Number(open.nestedBoxes) === nested && Number(open.nodes) === Number(before.nodes) + nested, `${where}: Expand draws every branch box in place (${open.nestedBoxes} nested of ${nested}; ${before.nodes} → ${open.nodes} boxes)`);
    check(open.selected === "If_0" && Number(open.labelPx) >= 11, `${where}: the expanded If stays selected and readable (${open.selected}, ${open.labelPx} px)`);
    const hash = await page.evaluate(() => decodeURIComponent(location.hash));
    check(/(^|[#&])x=If_0(&|$)/.test(hash), `${where}: the hash keeps the expansion (${hash})`);
    check((await page.getByRole("button", { name: "Collapse", exact: true }).count()) === 1, `${where}: the expanded If offers "Collapse"`);
    // the SVG export holds the nested boxes and a frame per branch
    const [svgDownload] = await Promise.all([page.waitForEvent("download"), page.click("#graph-export-svg")]);
    const svg = readFileSync(await svgDownload.path(), "utf8");
    const titles = (svg.match(/<g><title>/g) ?? []).length;
    const frames = [...svg.matchAll(/<g class="frame" data-owner="([^"]*)" data-branch="([^"]*)"/g)].map((m) => `${m[1]}.${m[2]}`).sort();
    check(titles === Number(open.nodes), `${where}: the SVG export has one <g><title> per box, nested ones included (${titles} of ${open.nodes})`);
    check(JSON.stringify(frames) === JSON.stringify(branchBoxes.map(([b]) => `If_0.${b}`).sort()), `${where}: the SVG export has a frame per branch (${JSON.stringify(frames)})`);
    // a nested box reading the graph's input: found by search, the outer edge listed among its inputs
    await page.fill("#graph-search", "padding/Pad");
    await page.waitForTimeout(150);
    const pad = await page.evaluate(() => ({ selected: document.querySelector("#graph").dataset.selected, inputs: document.querySelector("#graph-inputs")?.textContent ?? "" }));
    check(/padding\/Pad$/.test(pad.selected ?? "") && /input input/.test(pad.inputs), `${where}: a nested Pad lists the outer value it reads, the graph's input (${JSON.stringify(pad)})`);
    await noSidewaysScroll(page, where);
    // a nested If's branch opens as a view of its own, through the branch that holds it (three levels deep)
    await page.fill("#graph-search", '"If"');
    await page.waitForTimeout(150);
    await page.press("#graph-search", "Enter");
    await page.press("#graph-search", "Enter");
    await page.waitForTimeout(100);
    const inner = (await graphData(page)).selected ?? "";
    check(inner !== "If_0" && inner.startsWith("If_0_"), `${where}: search reaches a nested If (${inner})`);
    await page.click("#graph-side button >> text=/^open then_branch/");
    await page.waitForFunction(() => document.querySelector("#graph")?.dataset.depth === "3" && document.querySelector("#graph")?.dataset.engine, null, { timeout: 30_000 }).catch(() => {});
    const deep = await graphData(page);
    const crumbs = (await page.textContent("#graph-crumbs")) ?? "";
    const deepHash = await page.evaluate(() => decodeURIComponent(location.hash));
    check(deep.depth === "3" && /If_0\.(then|else)_branch/.test(crumbs) && (deepHash.match(/sg=/g) ?? []).length === 2 && !/[#&]x=/.test(deepHash), `${where}: a nested If's branch opens under the branch holding it (depth ${deep.depth}, ${crumbs}, ${deepHash})`);
    if (viewport.width > 1000) await page.screenshot({ path: join(tmpdir(), "tensorfile-expand-silero.png") }).catch(() => {});
    check(problems.length === 0, `${where}: no console errors (${problems.join("; ")})`);
    await page.close();

    // a link restores the expanded state; Collapse restores the graph
    page = await context.newPage();
    problems = watch(page);
    await page.goto(`${base}#url=${encodeURIComponent(`${base}files/silero_vad_v5.onnx`)}&v=graph&x=If_0`);
    await laidOut(page, 2).catch(() => {});
    const linked = await graphData(page);
    check(linked.frames === "2" && Number(linked.nestedBoxes) === nested, `${where}: a link with x=If_0 opens the graph expanded (${linked.frames} frames, ${linked.nestedBoxes} nested boxes)`);
    // a nested If expands inside its branch's frame (two more frames); collapsing If_0 folds both
    await page.fill("#graph-search", '"If"');
    await page.waitForTimeout(150);
    await page.press("#graph-search", "Enter");
    await page.press("#graph-search", "Enter");
    await page.waitForTimeout(100);
    const nestedIf = (await graphData(page)).selected ?? "";
    await page.getByRole("button", { name: "Expand", exact: true }).click();
    await laidOut(page, 4).catch(() => {});
    const deeper = await graphData(page);
    const deeperHash = await page.evaluate(() => decodeURIComponent(location.hash));
    check(deeper.frames === "4" && Number(deeper.nestedBoxes) > nested && (deeperHash.match(/[#&]x=/g) ?? []).length === 2 && deeperHash.includes(`>${nestedIf}`), `${where}: a nested If (${nestedIf}) expands inside its frame (${deeper.frames} frames, ${deeper.nestedBoxes} nested boxes, ${deeperHash})`);
    await selectNode(page, "If_0");
    await page.getByRole("button", { name: "Collapse", exact: true }).click();
    await laidOut(page, 0);
    const closed = await graphData(page);
    const closedHash = await page.evaluate(() => decodeURIComponent(location.hash));
    check(closed.nestedBoxes === "0" && closed.nodes === before.nodes && closed.edges === before.edges, `${where}: Collapse restores the graph (${closed.nodes} boxes, ${closed.edges} edges)`);
    check(!/(^|[#&])x=/.test(closedHash), `${where}: the hash drops the expansion (${closedHash})`);
    check((await page.getByRole("button", { name: "Expand", exact: true }).count()) === 1, `${where}: the collapsed If offers "Expand" again`);
    check(problems.length === 0, `${where}: no console errors after the link (${problems.join("; ")})`);
    await page.close();
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
for (const line of timings) console.log(`  ${line}`);
console.log(`inspector expand test: ${counts.passed} checks passed, ${counts.failures.length} failed`);
process.exit(counts.failures.length === 0 ? 0 : 1);
