import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createBuiltinTools } from "../../../src/agent/tools/builtin-tools.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { plantFifo, type PlantedFifo } from "../../helpers/fifo.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { unsandboxedCommands } from "../../helpers/unsandboxed-commands.js";

/**
 * A repository may plant FIFOs and sockets where files are expected. Opening
 * a FIFO for reading waits for a writer: the tools must answer at once
 * instead (each FIFO has a guard that releases a blocked reader after 10 s, so
 * a regression fails here on time rather than hanging the suite).
 */
let project: TempProject;
let fifos: PlantedFifo[];
let socketServer: Server | undefined;
const codeSearcher = { search: async () => ({ hits: [], degraded: [] }) };
const registry = () => new ToolRegistry(createBuiltinTools({ codeSearcher, ...unsandboxedCommands }), new PermissionPolicy("bypass"));
const call = (name: string, input: Record<string, unknown>) =>
  registry().run({ id: name, name, input }, { root: project.root, signal: new AbortController().signal, extraDirectories: [] });

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

beforeEach(() => {
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  fifos = [plantFifo(join(project.root, "notes.md")), plantFifo(join(project.root, "src/pipe.ts"))];
});
afterEach(async () => {
  for (const fifo of fifos) fifo.remove();
  await new Promise<void>((resolve) => (socketServer ? socketServer.close(() => resolve()) : resolve()));
  socketServer = undefined;
  project.cleanup();
});

describe("tools and special files", () => {
  it("read_file refuses a FIFO at once, saying what it is", async () => {
    const { value: result, ms } = await timed(() => call("read_file", { path: "notes.md" }));
    expect(ms).toBeLessThan(5_000);
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      "notes.md is a FIFO (named pipe), not a regular file. Sylk reads only regular files: reading a pipe, socket or device can wait forever. Leave it alone or ask the user about it.",
    );
  });

  it("read_file refuses a socket", async () => {
    socketServer = createServer();
    await new Promise<void>((resolve) => socketServer!.listen(join(project.root, "daemon.sock"), resolve));
    const result = await call("read_file", { path: "daemon.sock" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("daemon.sock is a socket, not a regular file");
  });

  it("grep names a FIFO it is pointed at, and passes over one in the tree", async () => {
    const pointed = await timed(() => call("grep", { pattern: "anything", path: "notes.md" }));
    expect(pointed.ms).toBeLessThan(5_000);
    expect(pointed.value.output).toContain("notes.md is a FIFO (named pipe), not a file or directory");
    const tree = await timed(() => call("grep", { pattern: "const a" }));
    expect(tree.ms).toBeLessThan(5_000);
    expect(tree.value.output).toContain("src/a.ts:1: export const a = 1;");
  });
});
