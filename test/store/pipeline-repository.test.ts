import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { PipelineRepository } from "../../src/store/pipeline-repository.js";
import { SessionRepository } from "../../src/store/session-repository.js";

const USAGE = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 900, cacheWriteTokens: 40 };
const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

let directory: string;
let db: SqliteDatabase;
let sessions: SessionRepository;
let pipelines: PipelineRepository;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-pipelines-"));
  db = openDatabase(join(directory, "vector.db"));
  sessions = new SessionRepository(db);
  pipelines = new PipelineRepository(db);
  sessions.create({ id: "root", title: "t", provider: "p", model: "m" }, 1);
  sessions.create({ id: "other", title: "t", provider: "p", model: "m" }, 1);
});

afterEach(() => {
  db.close();
  rmSync(directory, { recursive: true, force: true });
});

const child = (id: string, agentId: string, agentType: string) =>
  sessions.create(
    {
      id,
      title: "stage",
      provider: "p",
      model: "m",
      parent: { parentSessionId: "root", parentToolUseId: null, agentId, agentType, kind: "stage" },
    },
    2,
  );

describe("PipelineRepository", () => {
  it("records a pipeline's stages in order, with their state, entry, status, usage and times", () => {
    pipelines.create({ id: "p1", rootSessionId: "root", task: "Add a --json flag\n(exactly as typed)" }, 10);
    child("s-plan", "orchestrator-1", "orchestrator");
    const plan = pipelines.startStage(
      { pipelineId: "p1", stage: "plan", agentType: "orchestrator", agentId: "orchestrator-1", childSessionId: "s-plan", round: 0 },
      11,
    );
    pipelines.endStage("p1", plan, { status: "done", state: '{"pending_tasks":[]}', stateEntryId: "entry-1", usage: USAGE }, 12);
    const design = pipelines.startStage(
      { pipelineId: "p1", stage: "design", agentType: "architect", agentId: "architect-1", childSessionId: null, round: 0 },
      13,
    );
    child("s-design", "architect-1", "architect");
    pipelines.endStage(
      "p1",
      design,
      { status: "no_structure", state: "{}", stateEntryId: null, usage: NO_USAGE, childSessionId: "s-design" },
      14,
    );

    expect([plan, design]).toEqual([0, 1]);
    expect(pipelines.get("p1")).toEqual({
      id: "p1",
      rootSessionId: "root",
      task: "Add a --json flag\n(exactly as typed)",
      status: "running",
      stopReason: null,
      createdAt: 10,
      updatedAt: 14,
    });
    expect(pipelines.stages("p1")).toEqual([
      {
        pipelineId: "p1",
        ordinal: 0,
        stage: "plan",
        agentType: "orchestrator",
        agentId: "orchestrator-1",
        childSessionId: "s-plan",
        round: 0,
        state: '{"pending_tasks":[]}',
        stateEntryId: "entry-1",
        status: "done",
        usage: USAGE,
        startedAt: 11,
        endedAt: 12,
      },
      expect.objectContaining({
        ordinal: 1,
        stage: "design",
        childSessionId: "s-design",
        status: "no_structure",
        stateEntryId: null,
        usage: NO_USAGE,
        endedAt: 14,
      }),
    ]);
  });

  it("stores a stage's state, the model's structured answer, with its secrets masked", () => {
    const token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";
    pipelines.create({ id: "p1", rootSessionId: "root", task: "Release" }, 10);
    const plan = pipelines.startStage(
      { pipelineId: "p1", stage: "plan", agentType: "orchestrator", agentId: "orchestrator-1", childSessionId: null, round: 0 },
      11,
    );
    const state = JSON.stringify({ pending_tasks: [`Push with ${token}`, 'Run deploy --password="hunter2hunter2"'] });
    pipelines.endStage("p1", plan, { status: "done", state, stateEntryId: null, usage: USAGE }, 12);
    expect(JSON.parse(pipelines.stages("p1")[0]?.state ?? "null")).toEqual({
      pending_tasks: ["Push with [REDACTED:github-token]", 'Run deploy --password="[REDACTED:assigned-secret]"'],
    });
  });

  it("a stage still running has no state, no end and no usage yet; a fix round's rows carry their round", () => {
    pipelines.create({ id: "p1", rootSessionId: "root", task: "t" }, 10);
    pipelines.startStage(
      { pipelineId: "p1", stage: "review", agentType: "inspector", agentId: "inspector-1", childSessionId: null, round: 0 },
      11,
    );
    pipelines.startStage(
      { pipelineId: "p1", stage: "fix", agentType: "engineer", agentId: "engineer-1", childSessionId: null, round: 1 },
      12,
    );
    expect(pipelines.stages("p1")).toMatchObject([
      { ordinal: 0, stage: "review", round: 0, status: "running", state: null, stateEntryId: null, endedAt: null, usage: NO_USAGE },
      { ordinal: 1, stage: "fix", round: 1, status: "running" },
    ]);
  });

  it("finishes a pipeline with where and why it stopped", () => {
    pipelines.create({ id: "p1", rootSessionId: "root", task: "t" }, 10);
    pipelines.finish("p1", "stopped", "plan mode: stopped after the design", 20);
    expect(pipelines.get("p1")).toMatchObject({ status: "stopped", stopReason: "plan mode: stopped after the design", updatedAt: 20 });
    pipelines.create({ id: "p2", rootSessionId: "root", task: "t" }, 30);
    pipelines.finish("p2", "done", null, 40);
    expect(pipelines.get("p2")).toMatchObject({ status: "done", stopReason: null });
  });

  it("lists a root session's pipelines oldest first, each with its own stages, and no other session's", () => {
    pipelines.create({ id: "b", rootSessionId: "root", task: "second" }, 20);
    pipelines.create({ id: "a", rootSessionId: "root", task: "first" }, 10);
    pipelines.create({ id: "c", rootSessionId: "other", task: "elsewhere" }, 15);
    pipelines.startStage(
      { pipelineId: "a", stage: "plan", agentType: "orchestrator", agentId: "orchestrator-1", childSessionId: null, round: 0 },
      21,
    );
    pipelines.startStage(
      { pipelineId: "b", stage: "plan", agentType: "orchestrator", agentId: "orchestrator-2", childSessionId: null, round: 0 },
      22,
    );
    pipelines.startStage(
      { pipelineId: "b", stage: "design", agentType: "architect", agentId: "architect-1", childSessionId: null, round: 0 },
      23,
    );

    const listed = pipelines.listForSession("root");
    expect(
      listed.map((pipeline) => [pipeline.id, pipeline.task, pipeline.stages.map((stage) => `${stage.ordinal}:${stage.stage}`)]),
    ).toEqual([
      ["a", "first", ["0:plan"]],
      ["b", "second", ["0:plan", "1:design"]],
    ]);
    expect(pipelines.listForSession("nobody")).toEqual([]);
  });

  it("refuses what the schema does not allow: an unknown stage or status, a pipeline of no session, ending a stage that never started", () => {
    pipelines.create({ id: "p1", rootSessionId: "root", task: "t" }, 10);
    expect(() =>
      pipelines.startStage({
        pipelineId: "p1",
        stage: "deploy" as never,
        agentType: "engineer",
        agentId: "engineer-1",
        childSessionId: null,
        round: 0,
      }),
    ).toThrow(/CHECK/);
    expect(() => pipelines.finish("p1", "paused" as never)).toThrow(/CHECK/);
    expect(() => pipelines.create({ id: "p2", rootSessionId: "missing", task: "t" })).toThrow(/FOREIGN KEY/);
    expect(() => pipelines.endStage("p1", 7, { status: "done", state: null, stateEntryId: null, usage: NO_USAGE })).toThrow(/no stage 7/);
  });

  it("goes with its root session: deleting the session deletes its pipelines and their stages", () => {
    pipelines.create({ id: "p1", rootSessionId: "root", task: "t" }, 10);
    child("s-plan", "orchestrator-1", "orchestrator");
    pipelines.startStage(
      { pipelineId: "p1", stage: "plan", agentType: "orchestrator", agentId: "orchestrator-1", childSessionId: "s-plan", round: 0 },
      11,
    );
    db.prepare("DELETE FROM sessions WHERE id = 'root'").run();
    expect(pipelines.get("p1")).toBeUndefined();
    expect(db.prepare("SELECT count(*) FROM pipeline_stages").pluck().get()).toBe(0);
  });
});
