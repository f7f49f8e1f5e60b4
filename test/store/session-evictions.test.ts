import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/database.js";
import { consecutiveRuns, SessionRepository } from "../../src/store/session-repository.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function sessionWithMessages(count: number) {
  const directory = mkdtempSync(join(tmpdir(), "sylk-evictions-"));
  directories.push(directory);
  const db = openDatabase(join(directory, "vector.db"));
  const sessions = new SessionRepository(db);
  sessions.create({ id: "s", title: "t", provider: "p", model: "m" });
  for (let index = 0; index < count; index++)
    sessions.appendMessage(
      "s",
      { role: index % 2 ? "assistant" : "user", content: [{ type: "text", text: `m${index}` }] },
      { turn: index },
    );
  return { db, sessions };
}

describe("evictions as runs of ordinals", () => {
  it("groups ordinals into maximal runs, whatever their order and repeats", () => {
    expect(consecutiveRuns([])).toEqual([]);
    expect(consecutiveRuns([5, 1, 2, 3, 7, 8, 3])).toEqual([
      { first: 1, last: 3 },
      { first: 5, last: 5 },
      { first: 7, last: 8 },
    ]);
  });

  it("stores a trim of a whole session as one row, and reads every message's reference back", () => {
    const { db, sessions } = sessionWithMessages(600);
    sessions.markEvicted("s", [0, 1, 2], "first");
    sessions.markEvicted(
      "s",
      Array.from({ length: 590 }, (_, index) => index + 3),
      "trim",
    );
    sessions.markEvicted("s", [595, 597], "late");
    expect(db.prepare("SELECT count(*) FROM session_evictions").pluck().get()).toBe(4);
    const rows = sessions.messageRows("s");
    expect(rows).toHaveLength(600);
    const expected = (ordinal: number) =>
      ordinal < 3 ? "first" : ordinal < 593 ? "trim" : ordinal === 595 || ordinal === 597 ? "late" : null;
    for (const row of rows) expect(row.evictedBy).toBe(expected(row.ordinal));
    db.close();
  });
});
