/**
 * What a git configuration file points at outside itself: where hooks live
 * (`core.hooksPath`), other configuration files it includes, and programs
 * git runs on its own (fsmonitor, filters, diff and merge drivers, pagers,
 * editors, helpers). A sandboxed command must not be able to change any of
 * them, so the sandbox needs to know where they are.
 *
 * The syntax is git's (`git help config`, "CONFIGURATION FILE"): sections
 * `[core]`, `[filter "lfs"]` or `[branch.main]`, `name = value` lines,
 * comments after `#` or `;`, quoted values with backslash escapes, and
 * lines continued with a trailing backslash. Section and key names ignore
 * case; subsection names do not.
 */
export interface GitConfigReferences {
  /** `core.hooksPath` values, as written. */
  hooksPaths: string[];
  /** `include.path` and `includeIf.<condition>.path` values, as written. */
  includes: string[];
  /** The first word of each command line git may run, as written. */
  programs: string[];
}

/** Keys whose value is a command git runs without being asked to (besides `filter.*`, `diff.*`, `merge.*`). */
const PROGRAM_KEYS = new Set([
  "core.fsmonitor",
  "core.pager",
  "core.editor",
  "core.sshcommand",
  "core.askpass",
  "sequence.editor",
  "gpg.program",
  "gpg.ssh.program",
  "gpg.x509.program",
  "credential.helper",
  "diff.external",
]);

/** Per-driver keys (`filter.<name>.clean`, …) whose value is a command. */
const DRIVER_KEYS: Record<string, ReadonlySet<string>> = {
  filter: new Set(["clean", "smudge", "process"]),
  diff: new Set(["textconv", "command"]),
  merge: new Set(["driver"]),
};

export function gitConfigReferences(text: string): GitConfigReferences {
  const references: GitConfigReferences = { hooksPaths: [], includes: [], programs: [] };
  for (const { section, subsection, name, value } of gitConfigEntries(text)) {
    if (value === undefined) continue;
    const key = `${section}.${name}`;
    if (key === "core.hookspath") references.hooksPaths.push(value);
    else if (name === "path" && (section === "include" || section === "includeif")) references.includes.push(value);
    else if (PROGRAM_KEYS.has(key) || (subsection !== undefined && DRIVER_KEYS[section]?.has(name))) {
      const program = firstWord(value);
      if (program) references.programs.push(program);
    }
  }
  return references;
}

interface GitConfigEntry {
  /** Lower-cased. */
  section: string;
  subsection: string | undefined;
  /** Lower-cased. */
  name: string;
  /** Undefined for a bare `name` (a boolean true). */
  value: string | undefined;
}

/** Every `name = value` of the file with the section it is in. */
export function gitConfigEntries(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section = "";
  let subsection: string | undefined;
  for (const line of logicalLines(text)) {
    const trimmed = line.trimStart();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    if (trimmed.startsWith("[")) {
      const header = parseSectionHeader(trimmed);
      if (!header) continue;
      ({ section, subsection } = header);
      // `[section] name = value` on one line is allowed.
      const rest = trimmed.slice(header.length).trimStart();
      if (rest !== "" && !rest.startsWith("#") && !rest.startsWith(";")) entries.push(parseEntry(rest, section, subsection));
      continue;
    }
    entries.push(parseEntry(trimmed, section, subsection));
  }
  return entries;
}

/** Physical lines joined where a line ends in an unescaped backslash (git's continuation). */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = "";
  for (const raw of text.replace(/\r\n/g, "\n").split("\n")) {
    const trailing = /\\+$/.exec(raw)?.[0].length ?? 0;
    if (trailing % 2 === 1) {
      pending += raw.slice(0, -1);
      continue;
    }
    lines.push(pending + raw);
    pending = "";
  }
  if (pending !== "") lines.push(pending);
  return lines;
}

function parseSectionHeader(line: string): { section: string; subsection: string | undefined; length: number } | undefined {
  const quoted = /^\[\s*([A-Za-z0-9.-]+)\s+"((?:[^"\\]|\\.)*)"\s*\]/.exec(line);
  if (quoted)
    return {
      section: (quoted[1] as string).toLowerCase(),
      subsection: (quoted[2] as string).replace(/\\(.)/g, "$1"),
      length: quoted[0].length,
    };
  const plain = /^\[\s*([A-Za-z0-9-]+)(?:\.([^\]\s]+))?\s*\]/.exec(line);
  if (!plain) return undefined;
  // The deprecated `[section.subsection]` form: the subsection is compared lower-cased by git.
  return { section: (plain[1] as string).toLowerCase(), subsection: plain[2]?.toLowerCase(), length: plain[0].length };
}

function parseEntry(line: string, section: string, subsection: string | undefined): GitConfigEntry {
  const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(=?)(.*)$/.exec(line);
  if (!match) return { section, subsection, name: "", value: undefined };
  const name = (match[1] as string).toLowerCase();
  return { section, subsection, name, value: match[2] === "=" ? parseValue(match[3] as string) : undefined };
}

/** A value: quotes removed, escapes applied, a comment outside quotes dropped, outer white space trimmed. */
function parseValue(raw: string): string {
  let value = "";
  let quoted = false;
  for (let index = 0; index < raw.length; index++) {
    const character = raw[index] as string;
    if (character === "\\") {
      const next = raw[++index] ?? "";
      value += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : next;
    } else if (character === '"') {
      quoted = !quoted;
    } else if (!quoted && (character === "#" || character === ";")) {
      break;
    } else {
      value += character;
    }
  }
  return value.trim();
}

/** The program a command line starts with: git runs these through the shell, so the first word, unquoted. */
function firstWord(command: string): string | undefined {
  const trimmed = command.trim().replace(/^!/, "").trim();
  if (trimmed === "") return undefined;
  const quoted = /^(["'])(.*?)\1/.exec(trimmed);
  if (quoted) return quoted[2];
  return trimmed.split(/\s+/)[0];
}
