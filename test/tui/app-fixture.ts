import { afterEach, beforeEach } from "vitest";
import { startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { renderApp, type RenderAppOptions, type RenderedApp } from "./render-app.js";

/**
 * What an in-process test of the TUI makes (the real App through
 * `renderApp`, and a fake Messages API), taken down after each test whether
 * it passed or not: the apps first, so that no session still talks to the
 * server when it closes, then the server. The terminal tests' counterpart
 * is `createTerminalFixture`.
 */
export interface AppFixture {
  /** This test's fake Messages API, started before it. */
  readonly server: FakeAnthropicServer;
  /** The environment that sends a session's requests to this test's server, with `extra` on top. */
  modelEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** `renderApp` for this test; the app is closed after it (closing it earlier is fine). */
  render(options?: RenderAppOptions): Promise<RenderedApp>;
}

/**
 * Registers the set-up and teardown once for the file (call it at the top
 * level of a test file). Without `fakeModel` no server is started, for
 * files whose sessions never ask a model.
 */
export function createAppFixture({ fakeModel = true }: { fakeModel?: boolean } = {}): AppFixture {
  let server: FakeAnthropicServer | undefined;
  const apps: RenderedApp[] = [];
  beforeEach(async () => {
    if (fakeModel) server = await startFakeAnthropicServer();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await server?.close();
    server = undefined;
  });
  const current = (): FakeAnthropicServer => {
    if (!server) throw new Error("The fake Messages API runs only inside a test, of a fixture made with one.");
    return server;
  };
  return {
    get server() {
      return current();
    },
    modelEnv(extra = {}) {
      return { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: current().baseUrl, ...extra };
    },
    async render(options = {}) {
      const app = await renderApp(options);
      apps.push(app);
      return app;
    },
  };
}
