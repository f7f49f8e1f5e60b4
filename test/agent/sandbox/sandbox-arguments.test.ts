import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { opensNetwork, PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { bubblewrapArguments } from "../../../src/agent/sandbox/bubblewrap.js";
import { describeSandbox } from "../../../src/agent/sandbox/command-sandbox.js";
import { seatbeltProfile } from "../../../src/agent/sandbox/seatbelt.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject({ ".sylkrc": "{}\n", "src/a.ts": "" });
  mkdirSync(join(project.root, ".git/hooks"), { recursive: true });
  writeFileSync(join(project.root, ".git/config"), "[core]\n");
});
afterEach(() => project.cleanup());

describe("bubblewrap arguments", () => {
  it("mount a fresh /tmp first, then the writable directories over it, then the protected paths read-only", () => {
    const args = bubblewrapArguments("/bin/bash", "make test", { root: project.root, writable: ["/home/u/.npm"], network: false });
    const at = (...sequence: string[]) => args.findIndex((_, index) => sequence.every((value, offset) => args[index + offset] === value));
    expect(args.slice(0, 3)).toEqual(["--die-with-parent", "--new-session", "--unshare-all"]);
    expect(args).not.toContain("--share-net");
    const tmp = at("--tmpfs", "/tmp");
    const project_ = at("--bind", project.root, project.root);
    const extra = at("--bind-try", "/home/u/.npm", "/home/u/.npm");
    const hooks = at("--ro-bind", join(project.root, ".git/hooks"), join(project.root, ".git/hooks"));
    const config = at("--ro-bind", join(project.root, ".git/config"), join(project.root, ".git/config"));
    const settings = at("--ro-bind", join(project.root, ".sylkrc"), join(project.root, ".sylkrc"));
    expect(at("--ro-bind", "/", "/")).toBeLessThan(tmp);
    expect(tmp).toBeLessThan(project_);
    expect(project_).toBeLessThan(extra);
    for (const readOnly of [hooks, config, settings]) expect(readOnly).toBeGreaterThan(extra);
    // Absent protected paths are not created on the user's disk (.sylkignore), except git's hooks directory.
    expect(args.join(" ")).not.toContain(".sylkignore");
    expect(args.slice(-6)).toEqual(["TMPDIR", "/tmp", "--", "/bin/bash", "-c", "make test"]);
  });

  it("share the network only when asked", () => {
    expect(bubblewrapArguments("/bin/sh", "npm ci", { root: project.root, writable: [], network: true })).toContain("--share-net");
  });
});

describe("the Seatbelt profile (macOS)", () => {
  it("denies writes but to the project and temporary directories, keeps the protected paths read-only, and the network off", () => {
    const profile = seatbeltProfile({ root: '/Users/a "b"/proj', writable: [], network: false }, ["/private/tmp"]);
    expect(profile).toMatchSnapshot();
    expect(profile).toContain('(subpath "/Users/a \\"b\\"/proj")');
    expect(profile.indexOf("(deny file-write*)")).toBeLessThan(profile.indexOf("(allow file-write*"));
    expect(profile.indexOf("(allow file-write*")).toBeLessThan(profile.lastIndexOf("(deny file-write*"));
    expect(profile).toMatch(/\(deny network\*\)\n$/);
    expect(seatbeltProfile({ root: "/p", writable: [], network: true }, [])).not.toContain("network");
  });
});

describe("network allow rules", () => {
  it("open the network for the commands they name; a deny rule wins", async () => {
    const policy = new PermissionPolicy("default", { allow: ["network(npm install*)", "network(cargo fetch)"], deny: ["network(npm install evil*)"] });
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
    expect(await policy.decide({ tool: "run_command", kind: "execute", targets: { command: "npm ci" } })).toMatchObject({ behavior: "ask" });
  });
});

describe("describing the sandbox", () => {
  it("says what is writable and whether the network is on", () => {
    expect(describeSandbox({ state: "on", kind: "bubblewrap", network: false, networkRules: true })).toBe(
      "commands run sandboxed (bubblewrap: only the project and a temporary directory are writable; network off but for allowed commands)",
    );
    expect(describeSandbox({ state: "unavailable", reason: "bubblewrap is not installed" })).toBe("commands run unsandboxed: bubblewrap is not installed");
  });
});
