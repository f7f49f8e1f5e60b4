import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { RoutingRepository } from "../../src/store/routing-repository.js";
import { SessionRepository } from "../../src/store/session-repository.js";

const TOKEN = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";

let directory: string;
let db: SqliteDatabase;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-routing-"));
  db = openDatabase(join(directory, "vector.db"));
  new SessionRepository(db).create({ id: "s1", title: "t", provider: "p", model: "m" }, 1);
});
afterEach(() => {
  db.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("RoutingRepository", () => {
  it("stores a decision's query and reasoning with their secrets masked, the query masked before it is cut to 200 characters", () => {
    const routing = new RoutingRepository(db);
    routing.record({
      id: "d1",
      sessionId: "s1",
      turnNumber: 1,
      // Cut first, the token would keep 20 characters: too few for any rule to see.
      userQuery: `${"push the release branch ".repeat(8).slice(0, 179)} ${TOKEN}`,
      selectedAgent: "engineer",
      confidence: 0.8,
      reasoning: `It needs ${TOKEN} to push.`,
      contextId: "all",
      routedSessionId: null,
      createdAt: 2,
    });
    const [decision] = routing.history({ limit: 1 });
    expect(decision?.reasoning).toBe("It needs [REDACTED:github-token] to push.");
    expect(decision?.userQuery).toHaveLength(200);
    expect(JSON.stringify(decision)).not.toContain(TOKEN.slice(0, 8));
  });
});
