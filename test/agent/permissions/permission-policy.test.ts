import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PermissionPolicy, type PermissionMode, type PermissionRules } from "../../../src/agent/permissions/permission-policy.js";
import { createRunCommandTool } from "../../../src/agent/tools/run-command.js";
import type { ToolContext } from "../../../src/agent/tools/tool.js";
import { ToolRegistry, type Approver } from "../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { unsandboxedCommands } from "../../helpers/unsandboxed-commands.js";

/**
 * Allow and deny rules judge every simple command of a command line, through
 * the real registry and run_command. Matched as a string prefix, a rule for
 * `npm test*` would let `npm test; touch pwn` run unasked, and a deny rule
 * for `rm *` would let `true; rm x` through.
 */
let project: TempProject;
let context: ToolContext;

beforeEach(() => {
  project = createTempProject({ "package.json": JSON.stringify({ scripts: { test: "echo tested" } }), x: "keep me\n" });
  context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };
});
afterEach(() => project.cleanup());

interface Setup {
  mode?: PermissionMode;
  rules?: Partial<PermissionRules>;
  shellParser?: ConstructorParameters<typeof PermissionPolicy>[2];
}

/** A registry with the real run_command, a policy with these rules, and an approver that says no and remembers being asked. */
function registryWith({ mode = "default", rules = {}, shellParser }: Setup) {
  const approver = vi.fn<Approver>(async () => "deny");
  const policy = new PermissionPolicy(mode, { allow: rules.allow ?? [], deny: rules.deny ?? [] }, ...(shellParser ? [shellParser] : []));
  const registry = new ToolRegistry([createRunCommandTool(unsandboxedCommands)], policy, approver);
  const run = (command: string) => registry.run({ id: "1", name: "run_command", input: { command } }, context);
  return { run, approver, policy, registry };
}

const NPM_TEST = { allow: ["run_command(npm test*)"] };

describe("an allow rule covers a command line only when it covers every simple command", () => {
  it.each([
    ["a list", "npm test; touch pwn"],
    ["&&", "npm test && touch pwn"],
    ["||", "npm test || touch pwn"],
    ["a pipe", "npm test | touch pwn"],
    ["a background job", "npm test & touch pwn"],
    ["a command substitution", "npm test $(touch pwn)"],
    ["a substitution in quotes", 'npm test "$(touch pwn)"'],
    ["backticks", "npm test `touch pwn`"],
    ["a process substitution", "npm test <(touch pwn)"],
    ["a newline", "npm test\ntouch pwn"],
    ["a word that only starts like the rule", "npm testx; touch pwn"],
    ["a wrapped shell", "npm test -- $(bash -c 'touch pwn')"],
  ])("%s is asked about, not allowed: %s", async (_how, command) => {
    const { run, approver } = registryWith({ rules: NPM_TEST });
    const result = await run(command);
    expect(approver).toHaveBeenCalledTimes(1);
    expect(approver.mock.calls[0]?.[0].reason).toContain("no allow rule covers");
    expect(result.permission).toBe("denied");
    expect(existsSync(join(project.root, "pwn"))).toBe(false);
  });

  it.each([
    "npm test",
    "npm test -- --watch",
    "npm test 2>&1",
    "npm test > /dev/null 2>&1",
    "npm test && npm test -- --coverage",
    "npm test -- $(< /dev/null)",
  ])("%s is allowed without asking", async (command) => {
    const { run, approver } = registryWith({ rules: NPM_TEST });
    const result = await run(command);
    expect(approver).not.toHaveBeenCalled();
    expect(result.permission).toBe("allowed");
    expect(result.output).toContain("exit code: 0");
  });

  it("does not cover a leading assignment or an output redirection into a file", async () => {
    const { run, approver } = registryWith({ rules: NPM_TEST });
    await run("LD_PRELOAD=./evil.so npm test");
    await run("npm test > pwn");
    expect(approver).toHaveBeenCalledTimes(2);
    expect(approver.mock.calls[1]?.[0].reason).toBe(
      "Run a command: npm test > pwn (no allow rule covers `npm test > pwn` (it writes its output to a file))",
    );
    expect(existsSync(join(project.root, "pwn"))).toBe(false);
  });

  it("asks about what it cannot parse, and says why", async () => {
    const { run, approver } = registryWith({ rules: NPM_TEST });
    await run("npm test $(");
    expect(approver).toHaveBeenCalledTimes(1);
    expect(approver.mock.calls[0]?.[0].reason).toMatch(
      /^Run a command: npm test \$\( \(allow rules cannot judge it: its syntax is incomplete/,
    );
  });

  it("asks about every command when the shell parser cannot load, and deny rules still see the pieces", async () => {
    const broken = Promise.reject(new Error("grammar file missing"));
    const { run, approver } = registryWith({ rules: { ...NPM_TEST, deny: ["run_command(rm *)"] }, shellParser: broken });
    await run("npm test");
    expect(approver.mock.calls[0]?.[0].reason).toContain("Sylk could not load its shell parser (grammar file missing)");
    const denied = await run("npm test; rm x");
    expect(denied.permission).toBe("denied");
    expect(denied.output).toContain("A deny rule in the configuration forbids this run_command call. `rm x` matches run_command(rm *).");
    expect(existsSync(join(project.root, "x"))).toBe(true);
  });

  it("with no run_command rule at all, a command is asked about as before, without talk of rules", async () => {
    const { run, approver } = registryWith({});
    await run("npm test");
    expect(approver.mock.calls[0]?.[0].reason).toBe("Run a command: npm test");
  });
});

describe("a deny rule forbids a command line when it matches any simple command", () => {
  it.each([
    "true; rm x",
    "echo $(rm x)",
    "(rm x)",
    "npm test && sudo -u root rm x",
    "bash -c 'echo hi; rm x'",
    "find . -name x -exec rm {} \\;",
    "$(echo rm) x",
    "! if rm x; then true; fi",
  ])("%s is denied, even in bypass mode", async (command) => {
    const { run, approver } = registryWith({ mode: "bypass", rules: { deny: ["run_command(rm *)"] } });
    const result = await run(command);
    expect(result.permission).toBe("denied");
    expect(result.output).toContain("A deny rule in the configuration forbids this run_command call.");
    expect(approver).not.toHaveBeenCalled();
    expect(existsSync(join(project.root, "x"))).toBe(true);
  });

  it("denies a command it cannot parse when one of its pieces matches", async () => {
    const { run } = registryWith({ mode: "bypass", rules: { deny: ["run_command(rm *)"] } });
    const result = await run("rm x; echo 'unterminated");
    expect(result.permission).toBe("denied");
    expect(existsSync(join(project.root, "x"))).toBe(true);
  });

  it("wins over an allow rule for the same command line, and the user's own !command gets no pass", async () => {
    const { registry } = registryWith({ rules: { allow: ["run_command(npm test*)", "run_command(rm *)"], deny: ["run_command(rm *)"] } });
    const call = { id: "1", name: "run_command", input: { command: "npm test; rm x" } };
    expect((await registry.run(call, context)).permission).toBe("denied");
    expect((await registry.run(call, context, { userApproved: true })).permission).toBe("denied");
    expect(existsSync(join(project.root, "x"))).toBe(true);
  });
});

describe("the blocklist", () => {
  it("judges each simple command too, including the script of a shell it starts", async () => {
    const { run } = registryWith({ mode: "bypass" });
    const result = await run("bash -c 'rm -rf /'");
    expect(result.permission).toBe("denied");
    expect(result.output).toContain(
      "Refused in every permission mode: the command looks like recursive deletion of the root or home directory.",
    );
  });
});

describe("network rules", () => {
  it("open the network only when every simple command matches one; a deny rule wins", async () => {
    const policy = new PermissionPolicy("default", {
      allow: ["network(npm install*)", "network(npm ci)"],
      deny: ["network(npm install evil*)"],
    });
    expect(await policy.allowsNetwork("npm install && npm ci")).toBe(true);
    expect(await policy.allowsNetwork("npm install && curl x")).toBe(false);
    expect(await policy.allowsNetwork("npm install $(curl x)")).toBe(false);
    expect(await policy.allowsNetwork("npm install; npm install evil-package")).toBe(false);
    expect(await policy.allowsNetwork("npm install $(")).toBe(false);
  });
});

describe("an 'always for this session' answer", () => {
  it("covers that exact command line again, never a line built on it", async () => {
    const approver = vi.fn<Approver>(async () => "allow-session");
    const registry = new ToolRegistry([createRunCommandTool(unsandboxedCommands)], new PermissionPolicy("default"), approver);
    const run = (command: string) => registry.run({ id: "1", name: "run_command", input: { command } }, context);
    expect((await run("npm test")).permission).toBe("approved");
    expect((await run("npm test")).permission).toBe("allowed");
    approver.mockImplementation(async () => "deny");
    expect((await run("npm test; touch pwn")).permission).toBe("denied");
    expect((await run("npm test -- $(touch pwn)")).permission).toBe("denied");
    expect(approver).toHaveBeenCalledTimes(3);
    expect(existsSync(join(project.root, "pwn"))).toBe(false);
  });
});

describe("PermissionPolicy.grantForRun", () => {
  it("allows by the granted rules until they are taken back; a deny rule still wins", async () => {
    const policy = new PermissionPolicy("default", { allow: [], deny: ["write_file(secret.txt)"] });
    const write = (path: string) => policy.decide({ tool: "write_file", kind: "write", targets: { paths: [path] } });
    expect((await write("notes.txt")).behavior).toBe("ask");
    const release = policy.grantForRun(["write_file"]);
    expect((await write("notes.txt")).behavior).toBe("allow");
    expect((await write("secret.txt")).behavior).toBe("deny");
    release();
    expect((await write("notes.txt")).behavior).toBe("ask");
  });
});

describe("web_fetch (kind network)", () => {
  const fetch = (policy: PermissionPolicy, url: string) =>
    policy.decide({ tool: "web_fetch", kind: "network", targets: { fetch: { url, host: new URL(url).hostname } } });

  it("asks in default, accept-edits and plan mode; bypass allows", async () => {
    for (const mode of ["default", "accept-edits", "plan"] as const) {
      expect((await fetch(new PermissionPolicy(mode), "https://example.com/")).behavior).toBe("ask");
    }
    expect((await fetch(new PermissionPolicy("bypass"), "https://example.com/")).behavior).toBe("allow");
  });

  it("a domain rule covers exactly its host, not a subdomain; deny wins; the sandbox's network rule is no fetch rule", async () => {
    const policy = new PermissionPolicy("default", {
      allow: ["web_fetch(domain:example.com)", "network"],
      deny: ["web_fetch(domain:evil.example)"],
    });
    expect((await fetch(policy, "https://example.com/a")).behavior).toBe("allow");
    expect((await fetch(policy, "https://docs.example.com/a")).behavior).toBe("ask");
    expect((await fetch(policy, "https://evil.example/")).behavior).toBe("deny");
    expect((await fetch(new PermissionPolicy("bypass", { allow: [], deny: ["web_fetch"] }), "https://a.org/")).behavior).toBe("deny");
  });

  it("an 'always' answer covers that host for the session, not the others", async () => {
    const policy = new PermissionPolicy("default");
    policy.allowForSession({ tool: "web_fetch", kind: "network", targets: { fetch: { url: "https://a.org/x", host: "a.org" } } });
    expect((await fetch(policy, "https://a.org/y")).behavior).toBe("allow");
    expect((await fetch(policy, "https://b.org/y")).behavior).toBe("ask");
  });
});
