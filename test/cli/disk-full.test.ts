import { describe, expect, it } from "vitest";
import { diskFullMessage } from "../../src/cli/disk-full.js";

// On a full disk (scripts/bench-faults.mjs, SYLK_HOME on a small tmpfs) SQLite says
// "database or disk is full" while writing, and "disk I/O error" when it cannot even create
// the shared-memory file a WAL database needs to be read: the index is intact, but the user
// was told neither that the disk is full nor where.
const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code, name: "SqliteError" });

describe("a failure a full disk explains", () => {
  it("names the full disk and what to do, for SQLite's and the file system's own words", () => {
    const free = () => 0;
    for (const error of [
      sqliteError("SQLITE_FULL", "database or disk is full"),
      sqliteError("SQLITE_IOERR_SHMSIZE", "disk I/O error"),
      Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }),
    ]) {
      const message = diskFullMessage(error, "/data/sylk-home", free);
      expect(message).toMatch(/^The disk holding \/data\/sylk-home is full \(/);
      expect(message).toContain("free some space and run the command again");
      expect(message).toContain("what was indexed before is kept");
    }
  });

  it("leaves other failures alone, and an I/O error on a disk with room", () => {
    expect(diskFullMessage(sqliteError("SQLITE_IOERR_SHMSIZE", "disk I/O error"), "/data/sylk-home", () => 512 << 20)).toBeUndefined();
    expect(diskFullMessage(sqliteError("SQLITE_CONSTRAINT", "UNIQUE constraint failed"), "/data/sylk-home", () => 0)).toBeUndefined();
    expect(diskFullMessage(new Error("something else"), "/data/sylk-home", () => 0)).toBeUndefined();
  });
});
