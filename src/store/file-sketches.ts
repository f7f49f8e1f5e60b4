import type { SqliteDatabase } from "./database.js";

/**
 * The indexed files' trigram sketches (`search/trigram-sketch.ts`), by file
 * id: written with the file's other rows, removed with it (by cascade) or
 * when it stops being indexed, and read by grep for the files below a
 * directory.
 */
export class FileSketches {
  private readonly upsertStatement;
  private readonly deleteStatement;
  private readonly allStatement;
  private readonly underStatement;
  private readonly indexedAboveStatement;

  constructor(db: SqliteDatabase) {
    this.upsertStatement = db.prepare(
      "INSERT INTO file_sketches (file_id, sketch) VALUES (?, ?) ON CONFLICT(file_id) DO UPDATE SET sketch = excluded.sketch",
    );
    this.deleteStatement = db.prepare("DELETE FROM file_sketches WHERE file_id = ?");
    this.allStatement = db.prepare<[], { id: number; sketch: Buffer }>("SELECT file_id AS id, sketch FROM file_sketches");
    // Every path below `dir/` sorts from `dir/` up to `dir0` ('0' is the character after '/'): the path index, not a scan.
    this.underStatement = db.prepare<[string, string], { id: number; sketch: Buffer }>(
      `SELECT s.file_id AS id, s.sketch FROM files f JOIN file_sketches s ON s.file_id = f.id WHERE f.path >= ? AND f.path < ?`,
    );
    this.indexedAboveStatement = db.prepare<[number], SketchedFile>(
      `SELECT f.id, f.path, f.size, f.mtime_ms AS mtimeMs, s.sketch FROM files f JOIN file_sketches s ON s.file_id = f.id
       WHERE f.id > ? AND f.status = 'indexed' ORDER BY f.id`,
    );
  }

  /** Stores the file's sketch, or removes it (`null`: the file is no longer indexed). */
  replace(fileId: number, sketch: Uint8Array | null): void {
    if (sketch) this.upsertStatement.run(fileId, sketch);
    else this.deleteStatement.run(fileId);
  }

  /** The sketches of the files below a directory ('' for the whole project), by file id. */
  under(directory: string): Map<number, Uint8Array> {
    const rows = directory === "" ? this.allStatement.all() : this.underStatement.all(`${directory}/`, `${directory}0`);
    return new Map(rows.map((row) => [row.id, row.sketch]));
  }

  /**
   * The indexed files with a sketch whose id is above `id`, in id order: a
   * first index inserts its files, so a reader that keeps what it read asks
   * only for the rows added since.
   */
  indexedAbove(id: number): SketchedFile[] {
    return this.indexedAboveStatement.all(id);
  }
}

/** An indexed file with its sketch: valid while the file keeps this size and time. */
export interface SketchedFile {
  id: number;
  path: string;
  size: number;
  mtimeMs: number;
  sketch: Uint8Array;
}
