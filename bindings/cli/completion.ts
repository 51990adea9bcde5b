/**
 * `tensorfile completion bash|zsh|fish`: prints a shell completion script (commands, each command's options, files,
 * and the tensor names of the FILE already typed for `show FILE TENSOR` and `--tensor NAME`). The scripts ask for
 * tensor names with `tensorfile completion --tensors FILE`, which opens FILE lazily (headers only) and prints one
 * name a line; a file that does not open prints nothing. Install: `tensorfile completion bash >
 * ~/.local/share/bash-completion/completions/tensorfile` (zsh: into a folder of $fpath as `_tensorfile`; fish:
 * `~/.config/fish/completions/tensorfile.fish`).
 */
import { type CliIO, UsageError, print } from "./common.js";
import { openLazy } from "./inputs.js";
import type { Command } from "./command.js";

export const COMPLETION_HELP = `tensorfile completion bash|zsh|fish

Prints a completion script for the shell: commands, each command's options, file names, and the tensor names of
the FILE already typed (show FILE TENSOR, --tensor NAME; read from the file's headers only).
  bash  tensorfile completion bash > ~/.local/share/bash-completion/completions/tensorfile
  zsh   tensorfile completion zsh > "\${fpath[1]}/_tensorfile"   (then: autoload -U compinit && compinit)
  fish  tensorfile completion fish > ~/.config/fish/completions/tensorfile.fish
  --tensors FILE  print the tensor names of FILE, one a line (what the scripts call)`;

export const COMPLETION_OPTIONS = { tensors: { type: "string" } } as const;

/** Each command's options (long names, without the dashes), as run.ts's table has them. */
export type CommandOptions = Readonly<Record<string, readonly string[]>>;

/** Options after which the next word is a tensor name of the command's first FILE. */
const TENSOR_OPTIONS = ["tensor"];

function bashScript(commands: CommandOptions): string {
  const names = Object.keys(commands).join(" ");
  const cases = Object.entries(commands)
    .map(([name, options]) => `    ${name}) opts="${options.map((o) => `--${o}`).join(" ")} --help" ;;`)
    .join("\n");
  return `# bash completion for tensorfile (tensorfile completion bash)
_tensorfile() {
  local cur prev cmd opts file i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${names} help --help --version" -- "$cur"))
    return
  fi
  cmd="\${COMP_WORDS[1]}"
  if [ "$cmd" = help ]; then
    COMPREPLY=($(compgen -W "${names}" -- "$cur"))
    return
  fi
  file=""
  for ((i = 2; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) file="\${COMP_WORDS[i]}"; break ;; esac
  done
  case "$prev" in
    ${TENSOR_OPTIONS.map((o) => `--${o}`).join("|")})
      local IFS=$'\\n'
      COMPREPLY=($(compgen -W "$(tensorfile completion --tensors "$file" 2>/dev/null)" -- "$cur"))
      return ;;
  esac
  if [ "$cmd" = show ] && [ "$COMP_CWORD" -eq 3 ] && [ -n "$file" ]; then
    local IFS=$'\\n'
    COMPREPLY=($(compgen -W "$(tensorfile completion --tensors "$file" 2>/dev/null)" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    case "$cmd" in
${cases}
      *) opts="--help" ;;
    esac
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _tensorfile tensorfile
`;
}

function zshScript(commands: CommandOptions): string {
  // zsh runs the bash function through bashcompinit: one script, one behaviour
  return `#compdef tensorfile
# zsh completion for tensorfile (tensorfile completion zsh): the bash completion through bashcompinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(commands).replace(/^# bash completion.*\n/, "")}`;
}

function fishScript(commands: CommandOptions): string {
  const names = Object.keys(commands);
  const lines = [
    "# fish completion for tensorfile (tensorfile completion fish)",
    "complete -c tensorfile -f",
    `complete -c tensorfile -n "__fish_use_subcommand" -a "${names.join(" ")} help" -d "command"`,
    `complete -c tensorfile -n "__fish_use_subcommand" -l version -d "print the version"`,
    `complete -c tensorfile -n "__fish_seen_subcommand_from help" -a "${names.join(" ")}"`,
  ];
  for (const [name, options] of Object.entries(commands)) {
    lines.push(`complete -c tensorfile -n "__fish_seen_subcommand_from ${name}" -F`);
    for (const option of [...options, "help"]) {
      const tensor = TENSOR_OPTIONS.includes(option);
      lines.push(
        `complete -c tensorfile -n "__fish_seen_subcommand_from ${name}" -l ${option}${tensor ? ` -x -a "(tensorfile completion --tensors (commandline -opc)[3] 2>/dev/null)"` : ""}`,
      );
    }
  }
  lines.push(
    `complete -c tensorfile -n "__fish_seen_subcommand_from show; and test (count (commandline -opc)) -eq 3" -x -a "(tensorfile completion --tensors (commandline -opc)[3] 2>/dev/null)"`,
  );
  return `${lines.join("\n")}\n`;
}

/** Runs `tensorfile completion`; `commands` is every command with its options (from run.ts's table). */
export async function completionCommand(
  io: CliIO,
  args: string[],
  options: { tensors?: string | undefined },
  commands: CommandOptions,
): Promise<number> {
  if (options.tensors !== undefined) {
    if (args.length > 0) throw new UsageError("completion --tensors FILE takes no shell name");
    try {
      const opened = await openLazy(options.tensors);
      try {
        for (const info of opened.tensorInfos()) if (!info.name.includes("\n")) print(io.stdout, info.name);
      } finally {
        await opened.source.close?.();
      }
    } catch {
      // a shell asking while FILE is half typed: no names, no noise
    }
    return 0;
  }
  const [shell, ...extra] = args;
  if (shell === undefined || extra.length > 0) throw new UsageError("completion takes one shell: bash, zsh or fish");
  const scripts: Record<string, (c: CommandOptions) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };
  const script = Object.hasOwn(scripts, shell) ? scripts[shell] : undefined;
  if (!script) throw new UsageError(`completion: no script for the shell ${JSON.stringify(shell)} (bash, zsh or fish)`);
  io.stdout.write(script(commands));
  return 0;
}

/** The `completion` command, as run.ts lists it: its scripts know every command of the list run.ts hands it. */
export const COMPLETION_COMMAND: Command = {
  name: "completion",
  synopsis: "tensorfile completion bash|zsh|fish",
  help: COMPLETION_HELP,
  options: COMPLETION_OPTIONS,
  inputs: "none",
  inputOptions: "none",
  run: (io, positionals, values, { commands }) =>
    completionCommand(
      io,
      positionals,
      values as { tensors?: string },
      Object.fromEntries(commands.map((command) => [command.name, Object.keys(command.options)])),
    ),
};
