import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/agent-events.js";
import { RetrievalLearning, type RetrievalLearningDeps } from "../../../src/learning/session/retrieval-learning.js";
import { configDefaults } from "../../../src/config/defaults.js";
import { INITIAL_PRIORS } from "../../../src/context/prefetch/prefetch-config.js";
import { openDatabase, type SqliteDatabase } from "../../../src/store/database.js";
import { LearningRepository } from "../../../src/store/learning-repository.js";
import { UserProfileDatabase } from "../../../src/store/user-profile-database.js";
import { mulberry32 } from "../../helpers/random-vectors.js";

const LEARNING = configDefaults().learning;
const EMBED = async (text: string) => [text.length % 7, text.includes("test") ? 1 : 0, 1];
const USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const done = (response: string, stopReason: "end_turn" | "interrupted" = "end_turn"): AgentEvent => ({
  type: "done",
  result: { sessionId: "s", response, stopReason, turns: 1, toolCalls: 0, usage: USAGE },
});

let directory: string;
let databases: Array<{ close(): void }>;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-learning-"));
  databases = [];
});
afterEach(() => {
  for (const database of databases) database.close();
  rmSync(directory, { recursive: true, force: true });
});

function project(): SqliteDatabase {
  const db = openDatabase(join(directory, "vector.db"));
  databases.push(db);
  return db;
}

function userProfiles(): UserProfileDatabase {
  const db = UserProfileDatabase.open(join(directory, "profiles.db"));
  databases.push(db);
  return db;
}

function deps(overrides: Partial<RetrievalLearningDeps> = {}): RetrievalLearningDeps & { reports: string[] } {
  const reports: string[] = [];
  return {
    repository: new LearningRepository(project()),
    logPath: join(directory, "observations.log"),
    userProfiles: userProfiles(),
    projectKey: "project-a",
    config: LEARNING,
    budgetRatio: 0.1,
    embed: EMBED,
    report: (message) => reports.push(message),
    random: mulberry32(3),
    reports,
    ...overrides,
  };
}

/** One prompt's run: a search the model still needed, and the answer. */
async function episode(learning: RetrievalLearning, prompt: string, answer = "Done: src/a.ts:1-4."): Promise<void> {
  await learning.beginEpisode(prompt);
  learning.observe({ type: "tool_use", id: "t1", name: "grep", input: { pattern: "parseConfig" } });
  learning.observe(done(answer));
}

describe("RetrievalLearning", () => {
  it("starts at the priors, samples each prompt, and applies an episode when the next prompt closes it", async () => {
    const learning = RetrievalLearning.open(deps());
    expect(learning.thresholds()).toEqual(INITIAL_PRIORS);
    await episode(learning, "fix the config parser");
    // The thresholds are played at their means (the priors' until evidence moves them); the weights are drawn.
    const sampled = learning.thresholds();
    expect(sampled.confidenceThreshold).toBe(INITIAL_PRIORS.confidenceThreshold);
    expect(sampled).not.toEqual(INITIAL_PRIORS);
    expect(learning.summary().observations).toBe(0); // still open: the next prompt says how it went
    await episode(learning, "no, that's wrong: the parser is in src/config");
    learning.flush();
    expect(learning.summary().observations).toBe(1);
    learning.close();
    expect(learning.summary().observations).toBe(2);

    // Saved: a new session (another process) starts from it.
    const again = RetrievalLearning.open(deps());
    const summary = again.summary();
    expect(summary.observations).toBe(2);
    expect(summary.contexts.reduce((total, context) => total + context.count, 0)).toBe(2);
    // The user profile lives in profiles.db and saw both episodes.
    expect(summary.profile.observationCount).toBe(2);
  });

  it("applies a logged episode once after a crash between logging and saving, and the user profile once too", async () => {
    const first = deps();
    const learning = RetrievalLearning.open(first);
    await episode(learning, "one");
    await episode(learning, "two");
    learning.close();
    // What a kill after the append and before the state's save leaves: a line the state does not include.
    const line = readFileSync(first.logPath, "utf8").trim().split("\n").at(-1) as string;
    const logged = JSON.parse(line) as { sequence: number };
    appendFileSync(first.logPath, `${JSON.stringify({ ...logged, sequence: logged.sequence + 1, query: "three" })}\n`);
    const reopened = RetrievalLearning.open(deps());
    expect(reopened.summary().observations).toBe(3);
    expect(reopened.summary().profile.observationCount).toBe(3);
    expect(RetrievalLearning.open(deps()).summary().observations).toBe(3); // and not again
  });

  it("reports a damaged state once and starts again from the priors; the session goes on", async () => {
    const db = project();
    new LearningRepository(db).save("{ not json", 4);
    const first = deps({ repository: new LearningRepository(db) });
    const learning = RetrievalLearning.open(first);
    expect(first.reports).toHaveLength(1);
    expect(first.reports[0]).toMatch(/could not be read .*starts again from the priors/);
    expect(learning.summary().observations).toBe(0);
    await episode(learning, "after the damage");
    learning.close();
    const second = deps();
    expect(RetrievalLearning.open(second).summary().observations).toBe(1);
    expect(second.reports).toEqual([]);
  });

  it("a kill before the state's commit loses no episode: the log is emptied only once a committed state holds it", async () => {
    /** The project's transaction dies after its work and before its commit, as a SIGKILL there leaves it. */
    class KilledBeforeCommit extends LearningRepository {
      armed = false;
      override withWriteLock<T>(work: () => T): T {
        return super.withWriteLock(() => {
          const result = work();
          if (this.armed) throw new Error("killed before the commit");
          return result;
        });
      }
    }
    const repository = new KilledBeforeCommit(project());
    const learning = RetrievalLearning.open(deps({ repository }));
    // Enough episodes for the log to reach its compaction size, the last flush's commit lost.
    for (let i = 0; i < 101; i++) {
      await episode(learning, `prompt ${i}`);
      if (i === 100) repository.armed = true;
      learning.flush();
    }
    const reopened = RetrievalLearning.open(deps()).summary();
    expect(reopened.observations).toBe(100);
    expect(reopened.profile.observationCount).toBe(100);
  });

  it("moves a damaged log aside once, keeping what it could read", async () => {
    const first = deps();
    const learning = RetrievalLearning.open(first);
    await episode(learning, "one");
    learning.close();
    writeFileSync(first.logPath, `garbage that is not JSON\n${JSON.stringify({ sequence: 2, query: "x" })}\n`);
    const second = deps();
    RetrievalLearning.open(second);
    expect(second.reports).toHaveLength(1);
    expect(second.reports[0]).toMatch(/could not be read; it was moved aside/);
    expect(readdirSync(directory).some((name) => name.startsWith("observations.log.damaged-"))).toBe(true);
    const third = deps();
    RetrievalLearning.open(third);
    expect(third.reports).toEqual([]);
  });

  it("two processes on one project each add their episodes; neither overwrites the other", async () => {
    const a = RetrievalLearning.open(deps());
    const b = RetrievalLearning.open(deps({ random: mulberry32(9) }));
    await episode(a, "a one");
    await episode(b, "b one");
    await episode(a, "a two");
    await episode(b, "b two");
    a.close();
    b.close();
    const summary = RetrievalLearning.open(deps()).summary();
    expect(summary.observations).toBe(4);
    expect(summary.profile.observationCount).toBe(4);
  });

  it("an unusable store turns learning off for the session, said once, and the priors keep serving", async () => {
    const db = project();
    db.exec("DROP TABLE learning_state");
    const broken = deps({ repository: new LearningRepository(db) });
    const learning = RetrievalLearning.open(broken);
    await episode(learning, "one");
    await episode(learning, "two");
    learning.close();
    expect(broken.reports).toHaveLength(1);
    expect(broken.reports[0]).toMatch(/off for this session/);
    expect(learning.thresholds()).toEqual(INITIAL_PRIORS);
  });

  it("reset forgets the project's state, its log and the user profile", async () => {
    const learning = RetrievalLearning.open(deps());
    await episode(learning, "one");
    learning.close();
    const reset = deps();
    RetrievalLearning.reset(reset);
    expect(existsSync(reset.logPath)).toBe(false);
    const summary = RetrievalLearning.open(deps()).summary();
    expect(summary.observations).toBe(0);
    expect(summary.profile.observationCount).toBe(0);
  });

  it("after a SIGKILL at any moment of a burst, every episode is applied exactly once", async () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
    // Beside the repository's node_modules, where the bundle's external packages resolve.
    const bundle = join(root, `.sylk-test-learning-${process.pid}.mjs`);
    await build({
      stdin: {
        contents: `export { RetrievalLearning } from "./src/learning/session/retrieval-learning.ts";
export { LearningRepository } from "./src/store/learning-repository.ts";
export { UserProfileDatabase } from "./src/store/user-profile-database.ts";
export { openDatabase } from "./src/store/database.ts";
export { configDefaults } from "./src/config/defaults.ts";`,
        resolveDir: root,
        loader: "ts",
      },
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      outfile: bundle,
      logLevel: "silent",
    });
    const child = join(root, `.sylk-test-learning-child-${process.pid}.mjs`);
    writeFileSync(
      child,
      `import { writeSync } from "node:fs";
import { join } from "node:path";
import { RetrievalLearning, LearningRepository, UserProfileDatabase, openDatabase, configDefaults } from ${JSON.stringify(bundle)};
const dir = process.argv[2];
const learning = RetrievalLearning.open({
  repository: new LearningRepository(openDatabase(join(dir, "vector.db"))),
  logPath: join(dir, "observations.log"),
  userProfiles: UserProfileDatabase.open(join(dir, "profiles.db")),
  projectKey: "p", config: configDefaults().learning, budgetRatio: 0.1,
  embed: async (text) => [text.length % 5, 1, 0], report: (m) => writeSync(2, m + "\\n"),
});
writeSync(1, "ready\\n");
for (let i = 0; ; i++) {
  await learning.beginEpisode("prompt " + i);
  learning.observe({ type: "tool_use", id: "t", name: "grep", input: { pattern: "x" + i } });
  learning.observe({ type: "done", result: { sessionId: "s", response: i % 3 ? "done" : "I'm not sure", stopReason: "end_turn", turns: 1, toolCalls: 1, usage: {} } });
  learning.flush();
  writeSync(1, learning.summary().observations + "\\n");
}
`,
    );
    try {
      const random = mulberry32(23);
      let reported = 0;
      for (let trial = 0; trial < 5; trial++) {
        const process_ = spawn(process.execPath, [child, directory], { stdio: ["ignore", "pipe", "inherit"] });
        let output = "";
        const exited = new Promise<void>((resolveExit) => process_.on("exit", () => resolveExit()));
        // Two episodes applied in this trial before the kill's random moment: on a loaded machine a fixed delay alone
        // could end every trial before its burst began, and the test would prove nothing.
        await Promise.race([
          exited,
          new Promise<void>((ready) =>
            process_.stdout.on("data", (chunk: Buffer) => {
              output += chunk.toString("utf8");
              if (output.startsWith("ready\n") && output.split("\n").length > 3) ready();
            }),
          ),
        ]);
        expect(output.startsWith("ready\n")).toBe(true);
        await new Promise((wait) => setTimeout(wait, random() * 150));
        process_.kill("SIGKILL");
        await exited;
        for (const line of output.split("\n").slice(1, -1)) reported = Math.max(reported, Number(line));
        const db = openDatabase(join(directory, "vector.db"));
        const profiles = UserProfileDatabase.open(join(directory, "profiles.db"));
        const state = JSON.parse(new LearningRepository(db).load()?.state ?? "{}") as {
          totalObservations?: number;
          appliedSequence?: number;
        };
        const reopened = RetrievalLearning.open({
          ...deps(),
          repository: new LearningRepository(db),
          userProfiles: profiles,
          projectKey: "p",
        });
        const summary = reopened.summary();
        // Each sequence applied once and none skipped: as many observations as log positions.
        const saved = JSON.parse(new LearningRepository(db).load()?.state ?? "{}") as {
          totalObservations: number;
          appliedSequence: number;
        };
        expect(saved.totalObservations).toBe(saved.appliedSequence);
        expect(summary.observations).toBeGreaterThanOrEqual(reported);
        expect(summary.observations).toBeGreaterThanOrEqual(state.totalObservations ?? 0);
        expect(summary.profile.observationCount).toBe(summary.observations);
        profiles.close();
        db.close();
      }
      expect(reported).toBeGreaterThan(5);
    } finally {
      rmSync(child, { force: true });
      rmSync(bundle, { force: true });
    }
  }, 60_000);
});
