import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AgentEvent } from "../../src/agent/agent-events.js";
import type { HooksConfig } from "../../src/config/hooks-schema.js";
import { type ModelProject, openModelProject } from "./model-project.js";

/** A project whose user (`~/.sylkrc`) configured hooks, with a scripted model and a place for the hooks' scripts. */
export interface HookProject extends ModelProject {
  /** Outside the project: the scripts hooks run and what they record. */
  hooksDir: string;
  /** Writes an executable shell script into `hooksDir`; returns its path. */
  script(name: string, body: string): string;
  /** What the recording hooks wrote (one JSON object per line), oldest first. */
  seen(file: string): Array<Record<string, unknown>>;
}

/** Starts the fake model, writes the user's hooks into `~/.sylkrc` (made by `configure`), and opens the project. */
export async function openHookProject(
  configure: (project: Pick<HookProject, "script" | "hooksDir">) => HooksConfig,
  options: { files?: Record<string, string>; env?: NodeJS.ProcessEnv } = {},
): Promise<HookProject> {
  let hooksDir = "";
  const script = (name: string, body: string) => {
    const path = join(hooksDir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  const model = await openModelProject({
    ...(options.files ? { files: options.files } : {}),
    env: { SYLK_CONTEXT_PREFETCH: "false", ...options.env },
    beforeOpen: (project) => {
      hooksDir = dirname(project.root);
      writeFileSync(join(hooksDir, ".sylkrc"), JSON.stringify({ hooks: configure({ script, hooksDir }) }));
    },
  });
  return {
    ...model,
    hooksDir,
    script,
    seen(file) {
      const path = join(hooksDir, file);
      if (!existsSync(path)) return [];
      return readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/** A hook command that appends its stdin, one line, to `file` in `dir` (then does what `then` says). */
export function recording(dir: string, file: string, then = "exit 0"): string {
  return `cat >> '${join(dir, file)}'; echo >> '${join(dir, file)}'; ${then}`;
}

export type HookEvent = Extract<AgentEvent, { type: "hook" }>;

export function hookEvents(events: readonly AgentEvent[]): HookEvent[] {
  return events.filter((event): event is HookEvent => event.type === "hook");
}

/** Every text the request carries in its messages (tool results' included). */
export function requestText(body: unknown): string {
  return JSON.stringify((body as { messages: unknown }).messages);
}
