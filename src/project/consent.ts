import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import * as z from "zod";
import { ConsentRequiredError } from "../errors.js";
import type { ProjectPaths } from "./project-paths.js";

const projectFileSchema = z.object({
  root: z.string(),
  indexConsent: z
    .object({
      granted: z.boolean(),
      at: z.string(),
      via: z.string(),
    })
    .optional(),
});

type ProjectFile = z.infer<typeof projectFileSchema>;

/**
 * Indexing a project needs the user's permission once; the answer is
 * remembered per project in `project.json` beside its database.
 */
export class ConsentStore {
  constructor(private readonly paths: ProjectPaths) {}

  get projectRoot(): string {
    return this.paths.root;
  }

  /** `true`/`false` once the user answered, `undefined` if never asked. */
  indexConsent(): boolean | undefined {
    return this.read()?.indexConsent?.granted;
  }

  recordIndexConsent(granted: boolean, via: string): void {
    const current = this.read() ?? { root: this.paths.root };
    this.write({ ...current, root: this.paths.root, indexConsent: { granted, at: new Date().toISOString(), via } });
  }

  private read(): ProjectFile | undefined {
    let text: string;
    try {
      text = readFileSync(this.paths.projectFile, "utf8");
    } catch {
      return undefined;
    }
    const parsed = projectFileSchema.safeParse(safeJson(text));
    // A damaged project file only loses the remembered answer: the user is asked again.
    return parsed.success ? parsed.data : undefined;
  }

  private write(value: ProjectFile): void {
    mkdirSync(dirname(this.paths.projectFile), { recursive: true, mode: 0o700 });
    const temporary = `${this.paths.projectFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.paths.projectFile);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface IndexConsentRequest {
  /** `--yes` (or another explicit grant) was given for this run. */
  yes: boolean;
  /** Asks the user; absent when nobody can answer (scripts, CI, no TTY). */
  ask?: () => Promise<{ granted: boolean; remember: boolean }>;
}

/**
 * Decides whether this run may index the project: a remembered answer
 * stands; `--yes` grants (and is remembered); otherwise the user is asked,
 * and a run that cannot ask refuses with a message saying how to allow it.
 * Returns false when the user said no (chat still works, without the index).
 */
export async function resolveIndexConsent(store: ConsentStore, request: IndexConsentRequest): Promise<boolean> {
  const remembered = store.indexConsent();
  if (request.yes) {
    if (remembered !== true) store.recordIndexConsent(true, "--yes");
    return true;
  }
  if (remembered !== undefined) return remembered;
  if (!request.ask) {
    throw new ConsentRequiredError(
      `Sylk has not been allowed to index ${store.projectRoot} yet, and cannot ask here. ` +
        "Run `sylk index` in the project, or pass --yes, to allow it.",
    );
  }
  const answer = await request.ask();
  if (answer.remember) store.recordIndexConsent(answer.granted, "prompt");
  return answer.granted;
}
