// The CLI's commands as records (cli/command.ts): run.ts derives usage, --help, parsing, completion and dispatch
// from one list, so a command's record, its help and what the parser takes cannot drift apart.
import { describe, expect, it } from "vitest";
import type { Command } from "../bindings/cli/command.js";
import { COMPLETION_COMMAND } from "../bindings/cli/completion.js";
import { CONVERT_COMMAND } from "../bindings/cli/convert.js";
import { DIFF_COMMAND } from "../bindings/cli/diff.js";
import { EDIT_COMMAND } from "../bindings/cli/edit.js";
import { EXTRACT_COMMAND } from "../bindings/cli/extract.js";
import { INSPECT_COMMAND } from "../bindings/cli/inspect.js";
import { PATCH_COMMAND } from "../bindings/cli/patch.js";
import { SAMPLE_COMMAND } from "../bindings/cli/sample.js";
import { SHOW_COMMAND } from "../bindings/cli/show.js";
import { STATS_COMMAND } from "../bindings/cli/stats.js";
import { VERIFY_COMMAND } from "../bindings/cli/verify.js";
import { VIEW_COMMAND } from "../bindings/cli/view.js";
import { cli } from "./helpers/cli.js";

const RECORDS: Command[] = [
  INSPECT_COMMAND,
  VERIFY_COMMAND,
  CONVERT_COMMAND,
  EXTRACT_COMMAND,
  STATS_COMMAND,
  VIEW_COMMAND,
  PATCH_COMMAND,
  DIFF_COMMAND,
  EDIT_COMMAND,
  SHOW_COMMAND,
  SAMPLE_COMMAND,
  COMPLETION_COMMAND,
];

describe("commands as records", () => {
  it("the usage lists every command's synopsis, in order", async () => {
    const { stdout, code } = await cli("--help");
    expect(code).toBe(0);
    const usage = stdout.split("\n\n")[0]!;
    expect(usage).toBe(
      `Usage:\n${RECORDS.map((r) =>
        r.synopsis
          .split("\n")
          .map((l) => `  ${l}`)
          .join("\n"),
      ).join("\n")}`,
    );
  });

  for (const record of RECORDS) {
    it(`${record.name}: --help and "help ${record.name}" print its record's help, which names each of its options`, async () => {
      const help = await cli(record.name, "--help");
      // run.ts gives every command but completion --quiet (diff has its own), and says so in the help
      const quiet =
        record.name === "completion" || record.name === "diff"
          ? ""
          : "\n  --quiet  print nothing but errors (on standard error); the exit status says how it went";
      expect(help).toEqual({ code: 0, stdout: `${record.help}${quiet}\n`, stderr: "" });
      expect(await cli("help", record.name)).toEqual(help);
      for (const [option, spec] of Object.entries(record.options)) {
        expect(
          record.help.includes(`--${option}`) || (spec.short !== undefined && record.help.includes(`-${spec.short} `)),
          `--${option}`,
        ).toBe(true);
      }
      expect(record.help.startsWith(`tensorfile ${record.name}`)).toBe(true);
    });

    it(`${record.name}: an option of no record is refused with the record's options listed (exit 2)`, async () => {
      const r = await cli(record.name, "--no-such-option");
      expect(r.code).toBe(2);
      const listed =
        Object.keys(record.options)
          .map((o) => `--${o}`)
          .join(", ") || "no options";
      expect(r.stderr).toContain(`(it takes ${listed};`);
    });
  }

  it("the completion script offers each command and each record's options", async () => {
    const { stdout } = await cli("completion", "bash");
    for (const record of RECORDS) {
      expect(stdout).toContain(
        `    ${record.name}) opts="${Object.keys(record.options)
          .map((o) => `--${o}`)
          .join(" ")}${Object.keys(record.options).length ? " " : ""}--help" ;;`,
      );
    }
  });
});
