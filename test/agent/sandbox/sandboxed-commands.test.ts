import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { openCommandSandbox } from "../../../src/agent/sandbox/open-command-sandbox.js";
import type { RunCommandDeps } from "../../../src/agent/tools/run-command.js";
import { bubblewrap as probe, directoryOutsideTmp, sandboxedRegistry } from "../../helpers/sandboxed-commands.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

if (!probe.ok) console.warn(`Sandboxed command tests skipped: ${probe.reason}. CI installs bubblewrap (.ci/run) so that they run there.`);

let project: TempProject;
let outside: string;

/** A run_command registry in bypass mode (nothing asks), with the machine's real sandbox. */
function bypassRegistry(options: { network?: RunCommandDeps["networkFor"]; writableDirectories?: string[] } = {}) {
  const { run } = sandboxedRegistry(project.root, options);
  return (command: string, timeout_ms = 30_000) => run(command, { timeout_ms });
}

/** A directory outside the project and outside /tmp (which the sandbox replaces), so it is really there, read-only. */
function outsideDirectory(): string {
  const directory = directoryOutsideTmp("sylk-outside-");
  writeFileSync(join(directory, "precious.txt"), "keep me\n");
  return directory;
}

beforeEach(() => {
  project = createTempProject({ "src/a.ts": "export const a = 1;\n", ".sylkrc": "{}\n" });
  outside = outsideDirectory();
});
afterEach(() => {
  project.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

describe.skipIf(!probe.ok)("run_command in a bubblewrap sandbox", () => {
  it("a base64-wrapped rm -rf of a directory outside the project runs in bypass mode, and the directory survives", async () => {
    const payload = Buffer.from(`rm -rf ${outside}`).toString("base64");
    const result = await bypassRegistry()(`echo ${payload} | base64 -d | bash`);
    expect(result.permission).toBe("allowed");
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/Read-only file system/);
    expect(result.output).toMatch(/ran in a sandbox/);
    expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("keep me\n");
  });

  it("writes in the project and in a private /tmp, and nowhere else", async () => {
    const marker = `sylk-sandbox-${process.pid}-${Date.now()}`;
    const result = await bypassRegistry()(
      `echo built > src/out.txt && echo scratch > /tmp/${marker} && cat /tmp/${marker} && echo "$TMPDIR"`,
    );
    expect(result.isError).toBe(false);
    expect(result.output).toContain("scratch\n/tmp");
    expect(readFileSync(join(project.root, "src/out.txt"), "utf8")).toBe("built\n");
    // The command's /tmp was its own, and is gone.
    expect(existsSync(join("/tmp", marker))).toBe(false);

    const home = await bypassRegistry()(`touch ${join(outside, "new-file")}`);
    expect(home.isError).toBe(true);
    expect(readdirSync(outside)).toEqual(["precious.txt"]);
  });

  describe("the network", () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_request, response) => response.end("reached\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    // Node's fetch rather than bash's `3<>/dev/tcp`: the shell parser cannot read `<>`, so no rule could judge it.
    const connect = () =>
      `node -e 'fetch("http://127.0.0.1:${port}/").then((response) => response.text()).then((text) => process.stdout.write(text))'`;

    it("is off by default: not even the host's loopback is reachable", async () => {
      const result = await bypassRegistry()(connect());
      expect(result.isError).toBe(true);
      expect(result.output).not.toContain("reached");
    });

    it("is on for the commands an allow rule names", async () => {
      const policy = new PermissionPolicy("default", { allow: ["network(node -e *)"], deny: [] });
      const result = await bypassRegistry({ network: (command) => policy.allowsNetwork(command) })(connect());
      expect(result.isError, result.output).toBe(false);
      expect(result.output).toContain("reached");
    });

    it("stays off when a command the rule does not name is chained onto one it does", async () => {
      const policy = new PermissionPolicy("default", { allow: ["network(node -e *)"], deny: [] });
      const result = await bypassRegistry({ network: (command) => policy.allowsNetwork(command) })(`${connect()} && echo chained`);
      expect(result.isError).toBe(true);
      expect(result.output).not.toContain("reached");
    });
  });

  it("directories the user lists in sandbox.writableDirectories are writable", async () => {
    const result = await bypassRegistry({ writableDirectories: [outside] })(`echo cached > ${join(outside, "cache.txt")}`);
    expect(result.isError, result.output).toBe(false);
    expect(readFileSync(join(outside, "cache.txt"), "utf8")).toBe("cached\n");
  });

  it("a command past its timeout is killed with everything it started inside the sandbox", async () => {
    const tag = 4000 + (process.pid % 1000);
    const result = await bypassRegistry()(`(sleep ${tag} &) ; sleep ${tag}`, 500);
    expect(result.output).toMatch(/timed out/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const survivors = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").includes(`sleep ${tag}`);
        } catch {
          return false;
        }
      });
    expect(survivors).toEqual([]);
  });
});

describe("where no sandbox can be made", () => {
  const config = { enabled: true, network: false, writableDirectories: [], denyRead: [] };

  it("says why, and runs commands as they are", () => {
    const missing = openCommandSandbox({ config, networkRules: false, env: { PATH: "/nonexistent" }, root: "/p", platform: "linux" });
    expect(missing.status).toEqual({
      state: "unavailable",
      reason: expect.stringMatching(/bubblewrap is not installed.*apt-get install bubblewrap/),
    });
    expect(missing.prepare("/bin/sh", "true", {}, { root: "/p", writable: [], network: false }).plan).toEqual({
      file: "/bin/sh",
      args: ["-c", "true"],
      env: {},
    });

    const refused = openCommandSandbox({
      config,
      networkRules: false,
      env: {},
      root: "/p",
      platform: "linux",
      probe: () => ({ ok: false, reason: "no user namespaces" }),
    });
    expect(refused.status).toEqual({ state: "unavailable", reason: "no user namespaces" });

    const windows = openCommandSandbox({ config, networkRules: false, env: {}, root: "/p", platform: "win32" });
    expect(windows.status).toMatchObject({ state: "unavailable", reason: expect.stringMatching(/no sandbox for win32/) });
  });

  it("is off when the user turns it off, without probing", () => {
    const off = openCommandSandbox({
      config: { ...config, enabled: false },
      networkRules: false,
      env: {},
      root: "/p",
      probe: () => expect.unreachable("no probe when off"),
    });
    expect(off.status).toEqual({ state: "off" });
  });
});
