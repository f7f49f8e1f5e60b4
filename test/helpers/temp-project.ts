import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempProject {
  root: string;
  sylkHome: string;
  env: NodeJS.ProcessEnv;
  write(path: string, content: string | Uint8Array): void;
  remove(path: string): void;
  cleanup(): void;
}

/** Projects made in this test file and not yet cleaned up: `cleanUpTempProjects` removes them after the file's last test. */
const liveProjects = new Set<TempProject>();

/**
 * Removes every project this test file made and left: a test that makes a second project in one variable, or none
 * of whose hooks clean up, would otherwise leave its directory in the system's temporary directory for good (90 had
 * piled up on one machine). Run by `temp-projects.setup.ts` after each file, after the file's own hooks.
 */
export function cleanUpTempProjects(): void {
  for (const project of liveProjects) {
    try {
      project.cleanup();
    } catch {
      // A process a test started may still be writing in it (ENOTEMPTY): left, as it was before this sweep.
      liveProjects.delete(project);
    }
  }
}

/** A throw-away project directory and SYLK_HOME, removed by `cleanup()` (or after the test file, at the latest). */
export function createTempProject(files: Record<string, string | Uint8Array> = {}): TempProject {
  const base = mkdtempSync(join(tmpdir(), "sylk-test-"));
  const root = join(base, "project");
  const sylkHome = join(base, "home");
  mkdirSync(root, { recursive: true });
  const project: TempProject = {
    root,
    sylkHome,
    // Self-tuning retrieval samples the prefetch settings afresh for each prompt, so what is put in front of
    // the model varies from run to run. Tests that are not about learning pin the fixed priors; the
    // learning tests turn it back on (SYLK_LEARNING_ENABLED: "true").
    env: { ...process.env, SYLK_HOME: sylkHome, HOME: base, SYLK_LEARNING_ENABLED: "false" },
    write(path, content) {
      const absolute = join(root, path);
      mkdirSync(dirname(absolute), { recursive: true });
      writeFileSync(absolute, content);
    },
    remove(path) {
      rmSync(join(root, path), { force: true, recursive: true });
    },
    cleanup() {
      rmSync(base, { recursive: true, force: true });
      liveProjects.delete(project);
    },
  };
  liveProjects.add(project);
  for (const [path, content] of Object.entries(files)) project.write(path, content);
  return project;
}

/** A project of `count` TypeScript modules of 31 lines each, 100 to a directory: enough files that a first index takes a while. */
export function createModulesProject(count: number): TempProject {
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) {
    const lines = [`// module ${index}`];
    for (let line = 0; line < 30; line++) lines.push(`export function step${line}Of${index}(value: number) { return value + ${line}; }`);
    files[`src/m${Math.floor(index / 100)}/module${index}.ts`] = `${lines.join("\n")}\n`;
  }
  return createTempProject(files);
}
