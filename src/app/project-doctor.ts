import { existsSync } from "node:fs";
import type { SandboxStatus } from "../agent/sandbox/command-sandbox.js";
import { configFilePaths, type LoadedConfig } from "../config/load-config.js";
import { resolveProjectPaths } from "../project/project-paths.js";
import { runDoctor, type DoctorIndexState, type DoctorReport } from "./doctor.js";
import { checkIndexHealth } from "./index-health.js";
import { loadProjectConfig } from "./project-config.js";
import type { ProjectServices } from "./project-services.js";

/**
 * `sylk doctor`: the checks on a project from outside any session. A
 * project without an index is not given one (as `sylk status`); one with an
 * index is opened, walked against its manifest and its snapshots read whole.
 */
export async function doctorOfProject(options: { root: string; env: NodeJS.ProcessEnv; modelTimeoutMs?: number }): Promise<DoctorReport> {
  const paths = resolveProjectPaths(options.root, options.env);
  let config: LoadedConfig | Error;
  try {
    config = loadProjectConfig({ root: paths.root, env: options.env });
  } catch (error) {
    config = error instanceof Error ? error : new Error(String(error));
  }
  const index =
    config instanceof Error
      ? { state: "unknown" as const, reason: "the configuration did not load" }
      : await indexOf(paths.root, paths.database, options.env);
  return runDoctor({
    root: paths.root,
    env: options.env,
    config,
    configFiles: configFilePaths({ projectRoot: paths.root, env: options.env }),
    index,
    ...(options.modelTimeoutMs !== undefined ? { modelTimeoutMs: options.modelTimeoutMs } : {}),
  });
}

async function indexOf(root: string, database: string, env: NodeJS.ProcessEnv): Promise<DoctorIndexState> {
  if (!existsSync(database)) return { state: "missing" };
  // Loaded only here: a doctor on a project without an index does not pay for the services' modules.
  const { openProject } = await import("./project-services.js");
  const services = openProject({ root, env });
  try {
    return await checkIndexHealth(services);
  } finally {
    await services.close();
  }
}

/** `/doctor`: the same checks inside a session, on its open project, its sandbox and the index as the session sees it. */
export function doctorOfSession(
  services: ProjectServices,
  env: NodeJS.ProcessEnv,
  session: { index: DoctorIndexState; sandbox?: SandboxStatus },
): Promise<DoctorReport> {
  return runDoctor({
    root: services.paths.root,
    env,
    config: services.loadedConfig,
    configFiles: configFilePaths({ projectRoot: services.paths.root, env }),
    index: session.index,
    ...(session.sandbox ? { sandbox: session.sandbox } : {}),
  });
}
