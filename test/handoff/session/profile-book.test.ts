import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DECLINE_LEVELS } from "../../../src/handoff/decline-evidence.js";
import { ProfileBook } from "../../../src/handoff/session/profile-book.js";
import { emptyStatistics, type InstanceSummary, type ProfileStatistics, withInstance } from "../../../src/handoff/handoff-profile.js";
import { openDatabase, type SqliteDatabase } from "../../../src/store/database.js";
import { HandoffRepository } from "../../../src/store/handoff-repository.js";
import { UserProfileDatabase } from "../../../src/store/user-profile-database.js";

let directory: string;
let db: SqliteDatabase;
let repository: HandoffRepository;
let user: UserProfileDatabase;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-profiles-"));
  db = openDatabase(join(directory, "vector.db"));
  repository = new HandoffRepository(db);
  user = UserProfileDatabase.open(join(directory, "home", "profiles.db"));
});
afterEach(() => {
  user.close();
  db.close();
  rmSync(directory, { recursive: true, force: true });
});

const INSTANCE = { sessionId: "s-1", agentId: "engineer-1", agentType: "engineer", model: "claude-x" };

function start(agentId = INSTANCE.agentId): void {
  repository.startInstance({
    ...INSTANCE,
    agentId,
    handoffIndex: 0,
    startedAt: 1,
    handoffEntryId: null,
    state: null,
    stateText: null,
    preparedFraction: null,
  });
}

function summary(observations: number, onsetTokens?: number): InstanceSummary {
  return {
    observations,
    maxTokens: 40_000,
    peakQuality: 0.9,
    declineRatePerKiloToken: 0.02,
    plateauNoise: 0.05,
    ...(onsetTokens !== undefined ? { onsetTokens } : {}),
    growthPerTurn: { count: observations - 1, sum: (observations - 1) * 1_000 },
  };
}

function projectStatistics(): ProfileStatistics {
  return JSON.parse(repository.profileStatistics("engineer", "claude-x") as string) as ProfileStatistics;
}

function userStatistics(): ProfileStatistics {
  const row = user.profileRows().find((candidate) => candidate.agentType === "engineer" && candidate.model === "claude-x");
  return JSON.parse(row?.statistics as string) as ProfileStatistics;
}

describe("ProfileBook", () => {
  it("adds an instance to the project's and the user's statistics once, and replaces its contribution when it ends again", () => {
    const book = new ProfileBook(repository, () => user, "project-a");
    start();
    book.endInstance(INSTANCE, summary(10, 20_000), (contribution) =>
      repository.endInstance("s-1", "engineer-1", "session_end", contribution),
    );
    expect(projectStatistics()).toMatchObject({ instances: 1, onset: { count: 1, sum: 20_000 }, growthPerTurn: { count: 9 } });
    expect(userStatistics()).toMatchObject({ instances: 1, onset: { count: 1, sum: 20_000 } });

    // The session is continued and its instance ends again, having seen more.
    repository.reopenInstance("s-1", "engineer-1");
    book.endInstance(INSTANCE, summary(25, 22_000), (contribution) =>
      repository.endInstance("s-1", "engineer-1", "session_end", contribution),
    );
    expect(projectStatistics()).toMatchObject({ instances: 1, onset: { count: 1, sum: 22_000 }, growthPerTurn: { count: 24 } });
    expect(userStatistics()).toMatchObject({ instances: 1, onset: { count: 1, sum: 22_000 }, growthPerTurn: { count: 24 } });
    expect(repository.instance("s-1", "engineer-1")).toMatchObject({
      profileApplied: true,
      userProfileApplied: true,
      endReason: "session_end",
    });
  });

  it("reads a profile stored before the onsets' estimation errors were kept: those errors start at none", () => {
    const book = new ProfileBook(repository, () => undefined, "project-a");
    const stored = withInstance(emptyStatistics(), summary(10, 30_000));
    const { onsetErrorSquares: _added, ...older } = stored;
    repository.saveProfile("engineer", "claude-x", JSON.stringify(older));
    start();
    book.endInstance(INSTANCE, { ...summary(10, 34_000), onsetErrorSdTokens: 3_000 }, (contribution) =>
      repository.endInstance("s-1", "engineer-1", "session_end", contribution),
    );
    expect(projectStatistics()).toMatchObject({ onset: { count: 2, sum: 64_000 }, onsetErrorSquares: 9e6 });
    expect(Number.isFinite(book.profileFor("engineer", "claude-x", 200_000).onsetSdTokens)).toBe(true);
  });

  it("replaces a session's decline likelihoods when its instance ends again, and reads a row from before them as holding none", () => {
    const book = new ProfileBook(repository, () => user, "project-a");
    const older = withInstance(emptyStatistics(), summary(10, 30_000));
    const { declineEvidence: _added, ...stored } = older;
    repository.saveProfile("engineer", "claude-x", JSON.stringify(stored));
    const likelihoods = (rate: number) => DECLINE_LEVELS.map((level) => -0.5 * (Math.log(level / rate) / 0.1) ** 2);
    start();
    book.endInstance(INSTANCE, { ...summary(10, 20_000), declineLogLikelihoods: likelihoods(0.004) }, (contribution) =>
      repository.endInstance("s-1", "engineer-1", "session_end", contribution),
    );
    repository.reopenInstance("s-1", "engineer-1");
    book.endInstance(INSTANCE, { ...summary(25, 22_000), declineLogLikelihoods: likelihoods(0.03) }, (contribution) =>
      repository.endInstance("s-1", "engineer-1", "session_end", contribution),
    );
    for (const statistics of [projectStatistics(), userStatistics()]) {
      expect(statistics.declineEvidence.sessions).toBe(1);
      statistics.declineEvidence.logLikelihoods.forEach((value, level) => {
        expect(value).toBeCloseTo(likelihoods(0.03)[level] as number, 9);
      });
    }
    // The row's one session without likelihoods keeps its estimate out of the rate: the likelihoods place it.
    expect(book.profileFor("engineer", "claude-x", 200_000).declineRatePerKiloToken / 0.03).toBeCloseTo(1, 1);
  });

  it("catches the user's statistics up after a crash between the two commits, counting nothing twice", () => {
    let shared: UserProfileDatabase | undefined;
    const book = new ProfileBook(repository, () => shared, "project-a");
    start();
    start("engineer-2");
    // The user's file could not be written (the process died before, or it was unavailable).
    book.endInstance(INSTANCE, summary(8), (contribution) => repository.endInstance("s-1", "engineer-1", "handoff", contribution));
    expect(projectStatistics().instances).toBe(1);
    expect(user.profileRows()).toEqual([]);
    expect(repository.unappliedSummaries("user").map((instance) => instance.agentId)).toEqual(["engineer-1"]);

    shared = user;
    book.catchUpUser();
    book.catchUpUser();
    expect(userStatistics()).toMatchObject({ instances: 1 });
    expect(repository.unappliedSummaries("user")).toEqual([]);

    // The user's commit landed but the project's mark did not: applying again changes nothing.
    const instance = repository.instance("s-1", "engineer-1");
    db.prepare("UPDATE agent_instances SET user_profile_applied = 0").run();
    book.catchUpUser();
    expect(userStatistics()).toMatchObject({ instances: 1 });
    expect(instance?.summary).toBeTruthy();
  });

  it("pools what other projects taught the user: a new project starts from the user's statistics", () => {
    const otherDb = openDatabase(join(directory, "other.db"));
    const other = new HandoffRepository(otherDb);
    const teacher = new ProfileBook(other, () => user, "project-b");
    for (let index = 0; index < 6; index++) {
      const agentId = `engineer-${index + 1}`;
      other.startInstance({
        ...INSTANCE,
        agentId,
        handoffIndex: index,
        startedAt: 1,
        handoffEntryId: null,
        state: null,
        stateText: null,
        preparedFraction: null,
      });
      teacher.endInstance({ ...INSTANCE, agentId }, summary(12, 30_000), (contribution) =>
        other.endInstance("s-1", agentId, "handoff", contribution),
      );
    }
    const learner = new ProfileBook(repository, () => user, "project-a");
    const alone = new ProfileBook(repository, () => undefined, "project-a");
    const pooled = learner.profileFor("engineer", "claude-x", 200_000);
    const unpooled = alone.profileFor("engineer", "claude-x", 200_000);
    // The built-in default puts the onset at 60 % of the window; six instances at 30k pull it most of the way.
    expect(unpooled.onsetTokens).toBeCloseTo(120_000, -3);
    expect(pooled.onsetTokens).toBeLessThan(60_000);
    expect(pooled.evidence.typeModel).toBe(6);
    otherDb.close();
  });
});
