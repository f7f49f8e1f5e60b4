import { beforeAll, describe, expect, it } from "vitest";
import { analyseShellCommand, type ShellAnalysis } from "../../../src/agent/permissions/shell-commands.js";
import { fileWrites } from "../../../src/agent/permissions/simple-command.js";
import { loadBashParser, type ShellSyntaxParser } from "../../../src/parsing/bash-parser.js";

let parser: ShellSyntaxParser;
beforeAll(async () => {
  parser = await loadBashParser();
});

const analyse = (command: string): ShellAnalysis => analyseShellCommand(command, parser);
/** Each simple command as its words, `?` for a word only the run knows. */
const wordsOf = (command: string): string[][] => analyse(command).commands.map((simple) => simple.words.map((word) => word.value ?? "?"));

describe("the simple commands of a command line", () => {
  it("are found in lists, pipelines, background jobs and on every line", () => {
    expect(wordsOf("npm test; touch pwn")).toEqual([
      ["npm", "test"],
      ["touch", "pwn"],
    ]);
    expect(wordsOf("a && b || c | d & e")).toEqual([["a"], ["b"], ["c"], ["d"], ["e"]]);
    expect(wordsOf("npm test\ntouch pwn")).toEqual([
      ["npm", "test"],
      ["touch", "pwn"],
    ]);
    expect(wordsOf("a |& b")).toEqual([["a"], ["b"]]);
  });

  it("are found in substitutions, also inside double quotes, words and expansions", () => {
    expect(wordsOf("npm test $(touch pwn)")).toEqual([
      ["touch", "pwn"],
      ["npm", "test", "?"],
    ]);
    expect(wordsOf("npm test `touch pwn`")).toEqual([
      ["touch", "pwn"],
      ["npm", "test", "?"],
    ]);
    expect(wordsOf('echo "a $(id) b"')).toEqual([["id"], ["echo", "?"]]);
    expect(wordsOf("echo pre$(id)post ${x:-$(whoami)} $((1 + $(date +%s)))")).toEqual([
      ["id"],
      ["whoami"],
      ["date", "+%s"],
      ["echo", "?", "?", "?"],
    ]);
    expect(wordsOf("diff <(ls a) >(cat)")).toEqual([["ls", "a"], ["cat"], ["diff", "?", "?"]]);
    expect(wordsOf("X=$(id) npm test")).toEqual([["id"], ["npm", "test"]]);
  });

  it("are found in subshells, groups, conditionals, loops, case arms and function bodies", () => {
    expect(wordsOf("(rm x)")).toEqual([["rm", "x"]]);
    expect(wordsOf("{ a; b; }")).toEqual([["a"], ["b"]]);
    expect(wordsOf("if a; then b; elif c; then d; else e; fi")).toEqual([["a"], ["b"], ["c"], ["d"], ["e"]]);
    expect(wordsOf("while a; do b; done; until c; do d; done")).toEqual([["a"], ["b"], ["c"], ["d"]]);
    expect(wordsOf("case $x in a) rm y;; *) z;; esac")).toEqual([["rm", "y"], ["z"]]);
    expect(wordsOf("f() { rm x; }; f")).toEqual([["rm", "x"], ["f"]]);
    expect(wordsOf("! a")).toEqual([["a"]]);
    expect(wordsOf("[ -f x ] && [[ -d y ]] && z")).toEqual([["z"]]);
  });

  it("count a loop's variable and a bare assignment as commands of their own (they change what later commands run)", () => {
    const loop = analyse("for i in a b; do rm $i; done").commands;
    expect(loop.map((simple) => simple.text)).toEqual(["for i in a b", "rm $i"]);
    expect(loop[0]?.assignments).toHaveLength(1);
    const bare = analyse("PATH=./bin; npm test").commands;
    expect(bare[0]).toMatchObject({ words: [], assignments: [{ value: "PATH=./bin" }] });
  });

  it("keep leading assignments and redirections with their command", () => {
    const [command] = analyse("LD_PRELOAD=x npm test 2>&1 > out.log < in.txt").commands;
    expect(command?.assignments.map((word) => word.value)).toEqual(["LD_PRELOAD=x"]);
    expect(command?.words.map((word) => word.value)).toEqual(["npm", "test"]);
    expect(command?.redirections.map((redirection) => `${redirection.operator}${redirection.target?.value}`)).toEqual([
      ">&1",
      ">out.log",
      "<in.txt",
    ]);
    expect(fileWrites(command ?? { text: "", assignments: [], words: [], redirections: [] })).toHaveLength(1);
  });

  it("read words as bash passes them, and mark those only the run knows", () => {
    const [command] = analyse(`\\rm 'a b' "c d" e\\ f $x "$y" *.ts ~/x {a,b}`).commands;
    expect(command?.words.map((word) => [word.value ?? "?", word.splits])).toEqual([
      ["rm", false],
      ["a b", false],
      ["c d", false],
      ["e f", false],
      ["?", true],
      ["?", false],
      ["?", true],
      ["?", false],
      ["?", true],
    ]);
  });

  it("give bash's arguments after a redirection to the command (`echo > f hello`), and a redirection after a pipeline to its last command", () => {
    expect(wordsOf("echo > f hello world")).toEqual([["echo", "hello", "world"]]);
    const [first, last] = analyse("a | b > f x").commands;
    expect(first?.redirections).toEqual([]);
    expect(last?.words.map((word) => word.value)).toEqual(["b", "x"]);
    expect(last?.redirections.map((redirection) => redirection.operator)).toEqual([">"]);
  });

  it("count a redirection without a command: `$(> f)` empties f", () => {
    const commands = analyse("echo $(> f)").commands;
    expect(commands[0]).toMatchObject({ words: [], redirections: [{ operator: ">", target: { value: "f" } }] });
  });
});

describe("commands that run other commands", () => {
  it("are followed into the command they wrap", () => {
    expect(wordsOf("sudo -u root rm -rf x")).toEqual([
      ["sudo", "-u", "root", "rm", "-rf", "x"],
      ["rm", "-rf", "x"],
    ]);
    expect(wordsOf("xargs -n1 rm")).toEqual([["xargs", "-n1", "rm"], ["rm"]]);
    expect(wordsOf("find . -name '*.tmp' -exec rm {} \\;")).toEqual([
      ["find", ".", "-name", "*.tmp", "-exec", "rm", "{}", ";"],
      ["rm", "{}"],
    ]);
    expect(wordsOf("timeout -s KILL 5 nohup nice -n 5 time npm test")).toContainEqual(["npm", "test"]);
    expect(wordsOf("command -v rm")).toEqual([["command", "-v", "rm"]]);
    const viaEnv = analyse("env -i A=1 rm x").commands.at(-1);
    expect(viaEnv).toMatchObject({ assignments: [{ value: "A=1" }], words: [{ value: "rm" }, { value: "x" }] });
  });

  it("are followed into the scripts they run: bash -c, eval, trap, a heredoc or herestring fed to a shell", () => {
    expect(wordsOf("bash -c 'npm test; rm x'")).toEqual([
      ["bash", "-c", "npm test; rm x"],
      ["npm", "test"],
      ["rm", "x"],
    ]);
    expect(wordsOf("sh -euo pipefail -c \"sh -c 'rm x'\"")).toContainEqual(["rm", "x"]);
    expect(wordsOf('eval "rm x"')).toContainEqual(["rm", "x"]);
    expect(wordsOf("trap 'rm x' EXIT")).toContainEqual(["rm", "x"]);
    expect(wordsOf("bash <<'EOF'\nrm x\nEOF")).toContainEqual(["rm", "x"]);
    expect(wordsOf('bash <<< "rm x"')).toContainEqual(["rm", "x"]);
    expect(wordsOf("alias npm='touch pwn'")).toContainEqual(["touch", "pwn"]);
  });

  it("cannot be judged when what they run is only known when they run", () => {
    for (const command of ["eval $X", 'bash -c "$SCRIPT"', "sudo -s rm x", "bash <<EOF\nrm $x\nEOF", "xargs $FLAGS rm"]) {
      expect(analyse(command), command).toMatchObject({ parsed: false });
    }
  });

  it("stop following shells or wrappers nested too deep", () => {
    const nested = "eval 'eval \"eval eval eval eval rm x\"'";
    expect(analyse(nested)).toMatchObject({ parsed: false, reason: expect.stringContaining("nests shells") });
    expect(analyse(`${"sudo ".repeat(12)}rm x`)).toMatchObject({ parsed: false, reason: expect.stringContaining("wraps commands") });
  });
});

describe("a command line that cannot be judged", () => {
  it("is one with a syntax error, a missing part or a construct the parser does not know", () => {
    for (const command of [
      "npm test $(",
      "echo 'unterminated",
      "npm test )",
      "echo $( )",
      "exec 3<>/dev/tcp/host/80",
      "ls @(a|b)",
      "cat <<EOF; rm y\nx\nEOF",
    ]) {
      expect(analyse(command), command).toMatchObject({ parsed: false, reason: expect.any(String) });
    }
  });

  it("is one where tree-sitter reads a keyword as a command's name (bash runs `rm x` here)", () => {
    expect(analyse("! if rm x; then true; fi")).toMatchObject({ parsed: false, reason: expect.stringContaining("`if` as a command") });
  });

  it("is one with substitutions tree-sitter does not read: nested backticks, backticks in a heredoc", () => {
    expect(analyse("echo `echo \\`touch pwn\\``")).toMatchObject({ parsed: false });
    expect(analyse("cat <<EOF\n`touch pwn`\nEOF")).toMatchObject({ parsed: false });
  });

  it("still yields the commands that could be made out", () => {
    const analysis = analyse("rm x; echo $(");
    expect(analysis.parsed).toBe(false);
    expect(analysis.commands.map((command) => command.text)).toContain("rm x");
  });
});
