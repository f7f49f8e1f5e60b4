import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
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
    mkdirSync(dirname(this.paths.projectFile), { recursive: true });
    const temporary = `${this.paths.projectFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
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
