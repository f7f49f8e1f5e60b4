import { afterEach } from "vitest";
import { startFakeAnthropicServer, type FakeAnthropicServer } from "./fake-anthropic-server.js";
import { createTempProject, type TempProject } from "./temp-project.js";
import { startSylkInTmux, type TmuxTerminal } from "./tmux-terminal.js";

/**
 * What a test of `sylk` in a real terminal makes (projects, a fake Messages
 * API, tmux terminals), each taken down after the test whether it passed or
 * not: the terminals first, so that no `sylk` still runs when its server
 * closes or its project is removed, then the servers, then the projects.
 */
export interface TerminalFixture {
  /** A throw-away project and SYLK_HOME for this test. */
  project(files?: Record<string, string | Uint8Array>): TempProject;
  /** A fake Messages API for this test. */
  fakeModel(): Promise<FakeAnthropicServer>;
  /** `sylk` in a tmux terminal of its own for this test (see `startSylkInTmux`). */
  start(args: string[], options: Parameters<typeof startSylkInTmux>[1]): TmuxTerminal;
}

/** Registers the teardown once for the file (call it at the top level of a test file). */
export function createTerminalFixture(): TerminalFixture {
  const terminals: TmuxTerminal[] = [];
  const servers: FakeAnthropicServer[] = [];
  const projects: TempProject[] = [];
  afterEach(async () => {
    for (const terminal of terminals.splice(0)) terminal.close();
    for (const server of servers.splice(0)) await server.close();
    for (const project of projects.splice(0)) project.cleanup();
  });
  return {
    project(files = {}) {
      const project = createTempProject(files);
      projects.push(project);
      return project;
    },
    async fakeModel() {
      const server = await startFakeAnthropicServer();
      servers.push(server);
      return server;
    },
    start(args, options) {
      const terminal = startSylkInTmux(args, options);
      terminals.push(terminal);
      return terminal;
    },
  };
}
