import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import type { ToolDefinition } from "../../../../src/agent/tools/tool.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../../../src/app/project-services.js";
import { createTempProject, type TempProject } from "../../../helpers/temp-project.js";

/** A real project (SQLite in a temp directory) and a way to call tools through the registry's validation. */
export interface RoleToolKit {
  project: TempProject;
  services: ProjectServices;
  call(tool: ToolDefinition, input: Record<string, unknown>): Promise<{ output: string; isError?: boolean; display?: string }>;
  close(): Promise<void>;
}

export function openRoleToolKit(): RoleToolKit {
  const project = createTempProject();
  const services = openProject({ root: project.root, env: project.env });
  let calls = 0;
  return {
    project,
    services,
    async call(tool, input) {
      const registry = new ToolRegistry([tool], new PermissionPolicy("default"));
      calls += 1;
      return registry.run(
        { id: `call-${calls}`, name: tool.name, input },
        { root: project.root, signal: new AbortController().signal, extraDirectories: [] },
      );
    },
    async close() {
      await services.close();
      project.cleanup();
    },
  };
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** A fixed "now" for the tools' relative times: 2026-03-10T12:00:00Z. */
export const NOW = Date.parse("2026-03-10T12:00:00Z");
