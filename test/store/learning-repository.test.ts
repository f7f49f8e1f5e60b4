import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/database.js";
import { LearningRepository } from "../../src/store/learning-repository.js";
import { UserProfileDatabase } from "../../src/store/user-profile-database.js";

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-learning-store-"));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe("LearningRepository", () => {
  it("keeps one state row with its log position, replaced whole, and clears it", () => {
    const db = openDatabase(join(directory, "vector.db"));
    const repository = new LearningRepository(db);
    expect(repository.load()).toBeUndefined();
    repository.save('{"a":1}', 3);
    repository.withWriteLock(() => repository.save('{"a":2}', 5));
    expect(repository.load()).toEqual({ state: '{"a":2}', appliedSequence: 5 });
    repository.clear();
    expect(repository.load()).toBeUndefined();
    db.close();
  });
});

describe("UserProfileDatabase: the retrieval profile", () => {
  it("applies a project's episode once, keeps other projects' positions apart, and forgets one project's positions", () => {
    const profiles = UserProfileDatabase.open(join(directory, "profiles.db"));
    const add = (project: string, sequence: number) =>
      profiles.updateUserWeightProfile(project, sequence, (profile) => String(Number(profile ?? "0") + 1));
    expect(add("a", 1)).toBe("1");
    expect(add("a", 1)).toBe("1"); // a replay
    expect(add("b", 1)).toBe("2");
    expect(add("a", 2)).toBe("3");
    profiles.forgetProjectPositions("a");
    expect(add("a", 1)).toBe("4"); // a's log started again
    expect(add("b", 1)).toBe("4");
    profiles.clearUserWeightProfile();
    expect(profiles.userWeightProfile()).toBeUndefined();
    profiles.close();
  });

  it("upgrades a profiles.db of schema 1 and keeps its handoff profiles", () => {
    const path = join(directory, "profiles.db");
    const first = UserProfileDatabase.open(path);
    first.applyContribution("p/s/a", "engineer", "m", "{}", () => '{"n":1}');
    first.close();
    // Back to schema 1, as the handoff issue wrote it.
    const old = UserProfileDatabase.open(path) as unknown as { db: import("../../src/store/database.js").SqliteDatabase };
    old.db.exec("DROP TABLE user_weight_profile; PRAGMA user_version = 1;");
    old.db.close();
    const upgraded = UserProfileDatabase.open(path);
    expect(upgraded.profileRows()).toHaveLength(1);
    expect(upgraded.updateUserWeightProfile("p", 1, () => "x")).toBe("x");
    upgraded.close();
  });
});
