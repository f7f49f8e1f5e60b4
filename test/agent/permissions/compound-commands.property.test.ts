import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";

/**
 * Generated compound command lines: simple commands an allow rule covers,
 * ones a deny rule matches, and ones no rule names, joined by operators and
 * nested in subshells, groups, conditionals, substitutions and shells. A
 * line is allowed by rule exactly when every simple command in it is
 * allowed, and denied exactly when any is denied; the network opens by
 * the same measure.
 */
type Verdict = "allowed" | "denied" | "unruled";

interface Generated {
  text: string;
  verdicts: Verdict[];
}

const RULES = {
  allow: [
    "run_command(npm test*)",
    "run_command(git status*)",
    "run_command(echo ok:*)",
    "network(npm test*)",
    "network(git status*)",
    "network(echo ok:*)",
  ],
  deny: ["run_command(rm *)", "run_command(curl*)", "network(rm *)", "network(curl*)"],
};

const argument = fc.constantFrom("", " --watch", " -- --coverage", " src", " a b");
const simpleCommand = (verdict: Verdict, names: readonly string[]): fc.Arbitrary<Generated> =>
  fc.tuple(fc.constantFrom(...names), argument).map(([name, rest]) => ({ text: `${name}${rest}`, verdicts: [verdict] }));

const leaf = fc.oneof(
  simpleCommand("allowed", ["npm test", "git status", "echo ok"]),
  simpleCommand("denied", ["rm x", "rm -rf build", "curl example.com", "curl -s x"]),
  simpleCommand("unruled", ["touch pwn", "npm testx", "cat notes.txt", "git push", "ls"]),
);

const joined =
  (separator: string) =>
  (parts: [Generated, Generated]): Generated => ({
    text: `${parts[0].text}${separator}${parts[1].text}`,
    verdicts: [...parts[0].verdicts, ...parts[1].verdicts],
  });

const { line } = fc.letrec<{ line: Generated }>((tie) => {
  const inner = tie("line");
  return {
    line: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc
        .tuple(inner, fc.constantFrom("; ", " && ", " || ", " | ", " & ", "\n", " |& "), inner)
        .map(([left, separator, right]) => joined(separator)([left, right])),
      // Spaced: `((…))` is arithmetic, not a subshell in a subshell.
      inner.map((body) => ({ text: `( ${body.text} )`, verdicts: body.verdicts })),
      inner.map((body) => ({ text: `{ ${body.text}; }`, verdicts: body.verdicts })),
      fc.tuple(inner, inner).map(([condition, body]) => ({
        text: `if ${condition.text}; then ${body.text}; fi`,
        verdicts: [...condition.verdicts, ...body.verdicts],
      })),
      fc.tuple(inner, inner).map(([condition, body]) => ({
        text: `while ${condition.text}; do ${body.text}; done`,
        verdicts: [...condition.verdicts, ...body.verdicts],
      })),
      // tree-sitter reads `!` before a simple command or a subshell only (bash also before `if` or `{`).
      fc
        .oneof(
          leaf,
          inner.map((body) => ({ text: `( ${body.text} )`, verdicts: body.verdicts })),
        )
        .map((body) => ({ text: `! ${body.text}`, verdicts: body.verdicts })),
      // A substitution in an argument runs before the command it belongs to.
      fc.tuple(leaf, inner, fc.constantFrom(" $(", ' "$(', " <(")).map(([outer, body, opening]) => ({
        text: `${outer.text}${opening} ${body.text} )${opening.includes('"') ? '"' : ""}`,
        verdicts: [...outer.verdicts, ...body.verdicts],
      })),
      fc
        .tuple(leaf, leaf)
        .map(([outer, body]) => ({ text: `${outer.text} \`${body.text}\``, verdicts: [...outer.verdicts, ...body.verdicts] })),
      // A shell is a command of its own (no rule names it), and so is each command of its script.
      inner
        .filter((body) => !body.text.includes("'"))
        .map((body) => ({ text: `bash -c '${body.text}'`, verdicts: ["unruled" as const, ...body.verdicts] })),
    ),
  };
});

const expectedDecision = (verdicts: readonly Verdict[]) =>
  verdicts.includes("denied") ? "deny" : verdicts.every((verdict) => verdict === "allowed") ? "allow" : "ask";

describe("allow and deny rules over generated compound commands", () => {
  it("allow a line iff every simple command is allowed, deny it iff any is denied, and open the network likewise", async () => {
    const policy = new PermissionPolicy("default", RULES);
    await fc.assert(
      fc.asyncProperty(line, async ({ text, verdicts }) => {
        const decision = await policy.decide({ tool: "run_command", kind: "execute", targets: { command: text } });
        expect(decision.behavior, text).toBe(expectedDecision(verdicts));
        expect(await policy.allowsNetwork(text), text).toBe(expectedDecision(verdicts) === "allow");
      }),
      { numRuns: 400 },
    );
  });
});
