import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { settleUnsyncedWrites, UnsyncedWrites, unsyncedMarkPath } from "../../src/store/unsynced-writes.js";

const directories: string[] = [];
const opened: SqliteDatabase[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), "sylk-unsynced-"));
  directories.push(directory);
  return join(directory, "vector.db");
}

function open(path: string, onNotice?: (notice: string) => void): SqliteDatabase {
  const db = openDatabase(path, { mmap: false, ...(onNotice ? { onNotice } : {}) });
  opened.push(db);
  return db;
}

function withRows(path: string, count: number): void {
  const db = open(path);
  const insert = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
  db.transaction(() => {
    for (let row = 0; row < count; row++) insert.run(`row-${row}`, "x".repeat(200));
  })();
  db.close();
}

function rowCount(db: SqliteDatabase): number {
  return (db.prepare("SELECT count(*) AS n FROM meta WHERE key LIKE 'row-%'").get() as { n: number }).n;
}

/** A mark as a writer in another boot of the machine would have left it. */
function markFromAnotherBoot(path: string): void {
  writeFileSync(unsyncedMarkPath(path), `${JSON.stringify({ bootId: "another-boot", since: 0, pid: 1 })}\n`);
}

const COMPILED = (module: string) => pathToFileURL(fileURLToPath(new URL(`../../dist/src/store/${module}.js`, import.meta.url))).href;

/** A child writing rows unsynced (the compiled modules: run `npm run build` first), which says how many it committed and waits. */
const WRITER = `
import { openDatabase } from ${JSON.stringify(COMPILED("database"))};
import { UnsyncedWrites } from ${JSON.stringify(COMPILED("unsynced-writes"))};
const db = openDatabase(process.argv[1], { mmap: false });
const unsynced = UnsyncedWrites.begin(db);
const insert = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
for (let batch = 0; batch < 20; batch++) {
  db.transaction(() => { for (let row = 0; row < 500; row++) insert.run(\`row-\${batch * 500 + row}\`, "y".repeat(300)); })();
  unsynced.afterCommit();
}
process.stdout.write("10000\\n");
setInterval(() => {}, 1 << 30);
`;

async function startWriter(path: string) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", WRITER, path], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  return { child, committed: Number(line.toString().trim()) };
}

describe("a first index's unsynced writes", () => {
  it("write a mark and turn syncing off until they end, then sync and remove it", async () => {
    const path = databasePath();
    const db = open(path);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    const unsynced = UnsyncedWrites.begin(db);
    const mark = JSON.parse(readFileSync(unsyncedMarkPath(path), "utf8")) as { pid: number; bootId: string | null };
    expect(mark.pid).toBe(process.pid);
    expect(mark.bootId).toBe(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
    expect(statSync(unsyncedMarkPath(path)).mode & 0o777).toBe(0o600);
    expect(db.pragma("synchronous", { simple: true })).toBe(0);
    db.prepare("INSERT INTO meta (key, value) VALUES ('row-0', 'x')").run();
    unsynced?.afterCommit();
    await unsynced?.end();
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(existsSync(unsyncedMarkPath(path))).toBe(false);
  });

  it("are nothing to settle where no mark was left", () => {
    const path = databasePath();
    withRows(path, 3);
    expect(settleUnsyncedWrites(path, () => false)).toEqual({ outcome: "none" });
  });

  it("left by a writer killed mid-run are kept: the next open syncs them and removes the mark", async () => {
    const path = databasePath();
    const writer = await startWriter(path);
    writer.child.kill("SIGKILL");
    await once(writer.child, "exit");
    expect(existsSync(unsyncedMarkPath(path))).toBe(true);

    const db = open(path);
    expect(existsSync(unsyncedMarkPath(path))).toBe(false);
    expect(rowCount(db)).toBe(writer.committed);
    expect(db.pragma("quick_check", { simple: true })).toBe("ok");
  });

  it("under way in another process are left to it", async () => {
    const path = databasePath();
    const writer = await startWriter(path);
    try {
      expect(settleUnsyncedWrites(path, () => false)).toEqual({ outcome: "in-progress" });
      const db = open(path);
      expect(existsSync(unsyncedMarkPath(path))).toBe(true);
      expect(rowCount(db)).toBe(writer.committed);
    } finally {
      writer.child.kill("SIGKILL");
      await once(writer.child, "exit");
    }
  });

  it("from before the machine went down are checked, and a whole database is kept", () => {
    const path = databasePath();
    withRows(path, 50);
    markFromAnotherBoot(path);
    const notices: string[] = [];
    const db = open(path, (notice) => notices.push(notice));
    expect(notices).toEqual([]);
    expect(existsSync(unsyncedMarkPath(path))).toBe(false);
    expect(rowCount(db)).toBe(50);
  });

  it("from before the machine went down, in a damaged database, move it aside with a notice and start a new one", () => {
    const path = databasePath();
    withRows(path, 2_000);
    // Torn pages: what a machine going down mid-checkpoint can leave.
    const fd = openSync(path, "r+");
    const page = 16_384;
    for (let at = 3 * page; at < statSync(path).size; at += 7 * page) writeSync(fd, Buffer.alloc(page, 0xa5), 0, page, at);
    closeSync(fd);
    markFromAnotherBoot(path);
    const damaged = readFileSync(path);

    const notices: string[] = [];
    const db = open(path, (notice) => notices.push(notice));
    expect(notices).toHaveLength(1);
    const movedTo = readdirSync(join(path, "..")).find((name) => name.startsWith("vector.db.damaged-") && !name.endsWith("-wal"));
    expect(movedTo).toBeDefined();
    expect(notices[0]).toContain(join(path, "..", movedTo as string));
    expect(notices[0]).toContain("kept");
    expect(readFileSync(join(path, "..", movedTo as string)).equals(damaged)).toBe(true);
    expect(existsSync(unsyncedMarkPath(path))).toBe(false);
    expect(rowCount(db)).toBe(0);
    expect(db.pragma("quick_check", { simple: true })).toBe("ok");
  });

  it("behind a mark that cannot be read are checked as after a crash", () => {
    const path = databasePath();
    withRows(path, 5);
    writeFileSync(unsyncedMarkPath(path), "{ not json");
    let checked = 0;
    expect(
      settleUnsyncedWrites(path, () => {
        checked++;
        return true;
      }),
    ).toEqual({ outcome: "checked" });
    expect(checked).toBe(1);
    expect(existsSync(unsyncedMarkPath(path))).toBe(false);
  });
});
