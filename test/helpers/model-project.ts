import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drainIndex } from "./drain.js";
import { startFakeAnthropicServer, type FakeAnthropicServer } from "./fake-anthropic-server.js";
import { createTempProject, type TempProject } from "./temp-project.js";

/** A project with a scripted model: what most end-to-end tests of a session start from. */
export interface ModelProject {
  /** The fake Messages API the sessions' model calls reach. */
  server: FakeAnthropicServer;
  project: TempProject;
  /** The project's environment pointed at the server, one model attempt per call (a scripted failure is not retried). */
  env: NodeJS.ProcessEnv;
  /** Opened with `env`, its index built. */
  services: ProjectServices;
  /** Closes the services (`current`, when the test opened them again) and the server, and removes the project. */
  close(current?: ProjectServices): Promise<void>;
}

export interface ModelProjectOptions {
  files?: Record<string, string>;
  /** Added to (or overriding) the environment. */
  env?: NodeJS.ProcessEnv;
  /** Runs once the project is written, before its services open: what the user configures must be there when the configuration loads. */
  beforeOpen?: (project: TempProject) => void;
}

/** Starts a fake model, writes a temp project, opens its services against both and drains its first index. */
export async function openModelProject(options: ModelProjectOptions = {}): Promise<ModelProject> {
  const server = await startFakeAnthropicServer();
  const project = createTempProject(options.files ?? {});
  const env: NodeJS.ProcessEnv = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    ...options.env,
  };
  options.beforeOpen?.(project);
  const services = openProject({ root: project.root, env });
  await drainIndex(services);
  return {
    server,
    project,
    env,
    services,
    async close(current = services) {
      await current.close();
      await server.close();
      project.cleanup();
    },
  };
}
