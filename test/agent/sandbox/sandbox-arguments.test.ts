import { describe, expect, it } from "vitest";
import { opensNetwork, PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { bubblewrapArguments } from "../../../src/agent/sandbox/bubblewrap.js";
import { describeSandbox } from "../../../src/agent/sandbox/command-sandbox.js";
import { seatbeltProfile } from "../../../src/agent/sandbox/seatbelt.js";

describe("bubblewrap arguments", () => {
  const mounts = {
    readOnly: ["/p/.git", "/p/.sylkrc"],
    hidden: [
      { path: "/home/u/.ssh", kind: "directory" as const },
      { path: "/home/u/.npmrc", kind: "file" as const },
      // The command's /tmp is its own: nothing of the host's /tmp is there to hide.
      { path: "/tmp/ssh-agent/agent.1", kind: "file" as const },
    ],
    emptyFile: "/home/u/.sylk/sandbox-empty-file",
  };

  it("mount a fresh /tmp first, then the writable directories over it, then the protected paths read-only, then hide what is hidden", () => {
    const args = bubblewrapArguments("/bin/bash", "make test", { root: "/p", writable: ["/home/u/.npm"], network: false }, mounts);
    const at = (...sequence: string[]) => args.findIndex((_, index) => sequence.every((value, offset) => args[index + offset] === value));
    expect(args.slice(0, 3)).toEqual(["--die-with-parent", "--new-session", "--unshare-all"]);
    expect(args).not.toContain("--share-net");
    const tmp = at("--tmpfs", "/tmp");
    const project_ = at("--bind", "/p", "/p");
    const extra = at("--bind-try", "/home/u/.npm", "/home/u/.npm");
    const git = at("--ro-bind", "/p/.git", "/p/.git");
    const settings = at("--ro-bind", "/p/.sylkrc", "/p/.sylkrc");
    const ssh = at("--tmpfs", "/home/u/.ssh", "--remount-ro", "/home/u/.ssh");
    const npmrc = at("--ro-bind", "/home/u/.sylk/sandbox-empty-file", "/home/u/.npmrc");
    expect(at("--ro-bind", "/", "/")).toBeLessThan(tmp);
    expect(tmp).toBeLessThan(project_);
    expect(project_).toBeLessThan(extra);
    for (const readOnly of [git, settings]) expect(readOnly).toBeGreaterThan(extra);
    for (const hidden of [ssh, npmrc]) expect(hidden).toBeGreaterThan(settings);
    expect(args.join(" ")).not.toContain("ssh-agent");
    expect(args.slice(-6)).toEqual(["TMPDIR", "/tmp", "--", "/bin/bash", "-c", "make test"]);
  });

  it("share the network only when asked", () => {
    expect(bubblewrapArguments("/bin/sh", "npm ci", { root: "/p", writable: [], network: true }, mounts)).toContain("--share-net");
  });
});

describe("the Seatbelt profile (macOS)", () => {
  const protection = {
    readOnly: ['/Users/a "b"/proj/.git', '/Users/a "b"/proj/.sylkrc'],
    hidden: [
      { path: "/Users/a/.ssh", kind: "directory" as const },
      { path: "/Users/a/.npmrc", kind: "file" as const },
    ],
  };

  it("denies writes but to the project and temporary directories, keeps the protected paths read-only, hides credentials, and the network off", () => {
    const profile = seatbeltProfile({ root: '/Users/a "b"/proj', writable: [], network: false }, ["/private/tmp"], protection);
    expect(profile).toMatchSnapshot();
    expect(profile).toContain('(subpath "/Users/a \\"b\\"/proj")');
    expect(profile.indexOf("(deny file-write*)")).toBeLessThan(profile.indexOf("(allow file-write*"));
    expect(profile.indexOf("(allow file-write*")).toBeLessThan(profile.lastIndexOf("(deny file-write*"));
    expect(profile).toContain('(deny file-write* (subpath "/Users/a \\"b\\"/proj/.git") (subpath "/Users/a \\"b\\"/proj/.sylkrc"))');
    expect(profile).toContain('(deny file-read* (subpath "/Users/a/.ssh") (literal "/Users/a/.npmrc"))');
    expect(profile).toMatch(/\(deny network\*\)\n$/);
    expect(seatbeltProfile({ root: "/p", writable: [], network: true }, [], { readOnly: [], hidden: [] })).not.toContain("network");
  });

  it("denies creating a .git or Sylk setting at any depth of the project, in any case", () => {
    const profile = seatbeltProfile({ root: "/Users/a/my.proj", writable: [], network: false }, [], { readOnly: [], hidden: [] });
    const denied = profile.split("\n").find((line) => line.startsWith("(deny file-write* ("));
    const pattern = /\(regex #"([^"]+)"\)/.exec(denied ?? "")?.[1];
    expect(pattern).toBeDefined();
    const matches = (path: string) => new RegExp(pattern as string).test(path);
    for (const path of [
      "/Users/a/my.proj/.git",
      "/Users/a/my.proj/.git/config",
      "/Users/a/my.proj/sub/.GIT/hooks/x",
      "/Users/a/my.proj/a/b/.sylkrc",
      "/Users/a/my.proj/.sylk/agents/x.md",
      "/Users/a/my.proj/.SylkIgnore",
    ]) {
      expect(matches(path), path).toBe(true);
    }
    for (const path of [
      "/Users/a/my.proj/src/git.ts",
      "/Users/a/my.proj/.github/x",
      "/Users/a/my.proj/.gitignore",
      "/Users/a/myXproj/.git",
      "/Users/a/my.proj/.sylkrc.example",
    ]) {
      expect(matches(path), path).toBe(false);
    }
  });
});

describe("network allow rules", () => {
  it("open the network for the commands they name; a deny rule wins", async () => {
    const policy = new PermissionPolicy("default", {
      allow: ["network(npm install*)", "network(cargo fetch)"],
      deny: ["network(npm install evil*)"],
    });
    expect(await policy.allowsNetwork("npm install")).toBe(true);
    expect(await policy.allowsNetwork("npm install --save zod")).toBe(true);
    expect(await policy.allowsNetwork("cargo fetch")).toBe(true);
    expect(await policy.allowsNetwork("npm install evil-package")).toBe(false);
    expect(await policy.allowsNetwork("curl http://example.com")).toBe(false);
    expect(await new PermissionPolicy("default", { allow: ["network"], deny: [] }).allowsNetwork("anything")).toBe(true);
    expect(opensNetwork(["run_command(npm test*)"])).toBe(false);
    expect(opensNetwork(["run_command(npm test*)", "network(npm ci)"])).toBe(true);
  });

  it("do not make a command run without asking", async () => {
    const policy = new PermissionPolicy("default", { allow: ["network"], deny: [] });
    expect(await policy.decide({ tool: "run_command", kind: "execute", targets: { command: "npm ci" } })).toMatchObject({
      behavior: "ask",
    });
  });
});

describe("describing the sandbox", () => {
  it("says what is writable and whether the network is on", () => {
    expect(
      describeSandbox({
        state: "on",
        kind: "bubblewrap",
        network: false,
        networkRules: true,
        hidden: ["~/.sylk", "~/.ssh", "~/.aws", "~/.npmrc"],
        kept: [],
      }),
    ).toBe(
      "commands run sandboxed (bubblewrap: only the project and a temporary directory are writable, but not .git or Sylk's settings; " +
        "~/.sylk, ~/.ssh and 2 more hidden; network off but for allowed commands)",
    );
    expect(describeSandbox({ state: "unavailable", reason: "bubblewrap is not installed" })).toBe(
      "commands run unsandboxed: bubblewrap is not installed",
    );
  });
});
