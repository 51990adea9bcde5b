// Totals of the fuzzing runs recorded in fuzz/.work/stats.jsonl (one line per target run by run.mjs):
//   node fuzz/stats.mjs [--since ISO-DATE] [--markdown]
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const file = join(dirname(fileURLToPath(import.meta.url)), ".work", "stats.jsonl");
const args = process.argv.slice(2);
const since = args.includes("--since") ? args[args.indexOf("--since") + 1] : "";
const markdown = args.includes("--markdown");
const runs = existsSync(file)
  ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)).filter((r) => r.date >= since)
  : [];
const byTarget = new Map();
for (const r of runs) {
  const t = byTarget.get(r.target) ?? { target: r.target, runs: 0, seconds: 0, executions: 0, findings: 0, features: 0, coverage: 0, corpus: 0 };
  t.runs++;
  t.seconds += r.seconds;
  t.executions += r.executions;
  if (r.finding) t.findings++;
  // coverage, features and corpus grow over a campaign (the corpus folder persists): keep the latest
  if (r.features > 0) Object.assign(t, { features: r.features, coverage: r.coverage, corpus: r.corpus });
  byTarget.set(r.target, t);
}
const rows = [...byTarget.values()];
const total = rows.reduce((a, r) => ({ seconds: a.seconds + r.seconds, executions: a.executions + r.executions, findings: a.findings + r.findings }), { seconds: 0, executions: 0, findings: 0 });
const rate = (r) => (r.seconds > 0 ? Math.round(r.executions / r.seconds) : 0);
if (markdown) {
  console.log("| target | runs | time | executions | exec/s | coverage (edges) | features | corpus | runs with findings |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) console.log(`| ${r.target} | ${r.runs} | ${(r.seconds / 60).toFixed(1)} min | ${r.executions.toLocaleString("en")} | ${rate(r)} | ${r.coverage} | ${r.features} | ${r.corpus} | ${r.findings} |`);
  console.log(`| all | ${runs.length} | ${(total.seconds / 60).toFixed(1)} min | ${total.executions.toLocaleString("en")} | ${rate(total)} | | | | ${total.findings} |`);
} else {
  for (const r of rows) console.log(`${r.target.padEnd(12)} runs ${r.runs}  ${(r.seconds / 60).toFixed(1)} min  ${r.executions} executions  ${rate(r)}/s  cov ${r.coverage}  ft ${r.features}  corpus ${r.corpus}  findings ${r.findings}`);
  console.log(`total: ${(total.seconds / 60).toFixed(1)} min, ${total.executions} executions, ${total.findings} runs with findings`);
}
