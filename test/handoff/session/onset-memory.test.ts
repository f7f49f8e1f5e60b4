import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionRecorder } from "../../../src/agent/session-recorder.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { configSchema } from "../../../src/config/schema.js";
import { DegradationDetector } from "../../../src/handoff/degradation-detector.js";
import { pooledProfile, type ProfileStatistics } from "../../../src/handoff/handoff-profile.js";
import { HandoffController } from "../../../src/handoff/session/handoff-controller.js";
import { endInstance, openInstance } from "../../../src/handoff/session/instance-chain.js";
import { ProfileBook } from "../../../src/handoff/session/profile-book.js";
import { estimateTokens } from "../../../src/tokens/estimate-tokens.js";
import { withProjectDatabase } from "../../helpers/project-database.js";
import { mulberry32 } from "../../helpers/random-vectors.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/**
 * Seeded sessions through the real controller: turns whose tool calls fail
 * more often once the context passes the session's onset (the tracker turns
 * the failures into the quality it observes), handoffs planned and
 * committed as the loop does. The instance after a handoff must fire sooner
 * past the onset than an instance that starts from the profile alone would,
 * on the same turns.
 */
const WINDOW = 100_000;
const ONSET = 35_000;
const GROWTH = 3_000;
const config = configSchema.parse({}).handoff;

/** Tool calls a turn; past the onset each fails more often (a tool failure costs 15 % of the turn's quality). */
const CALLS = 4;
function failures(random: () => number, context: number): number {
  const chance = 0.04 + Math.min(0.8, 0.03 * Math.max(0, (context - ONSET) / 1000));
  let count = 0;
  for (let index = 0; index < CALLS; index++) if (random() < chance) count++;
  return count;
}

let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject();
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

/** One seeded session until its second instance fires: the sizes each instance fired at, and the second's observations. */
async function runSession(seed: number) {
  const random = mulberry32(seed);
  const recorder = SessionRecorder.start(
    { sessions: services.sessions, contentStore: services.contentStore, identity: { agentId: "engineer-1", agentType: "engineer" } },
    { title: "Rename the totals", provider: "anthropic", model: "claude-fake" },
  );
  await recorder.recordPrompt("Rename the totals", recorder.nextTurn());
  const profiles = new ProfileBook(services.handoffs, () => undefined, "project");
  const controller = new HandoffController({
    repository: services.handoffs,
    profiles,
    contentStore: services.contentStore,
    sessionId: recorder.sessionId,
    agentType: "engineer",
    model: "claude-fake",
    windowTokens: WINDOW,
    config,
    countTokens: estimateTokens,
    random: () => 0.5,
  });
  controller.promptStarted("Rename the totals");
  const firedAt: number[] = [];
  let context = 8_000;
  let call = 0;
  for (let turn = 1; turn <= 120 && firedAt.length < 2; turn++) {
    const plan = controller.planFor(turn, context);
    if (plan?.action === "handoff") {
      firedAt.push(context);
      if (firedAt.length === 2) break;
      await plan.commit(undefined);
      context = plan.keepTokens + 2_000;
    }
    controller.turnStarted(turn);
    const failed = failures(random, context);
    for (let index = 0; index < CALLS; index++) {
      controller.toolResult(
        { name: "run_command", input: { command: `step ${call++}` } },
        {
          isError: index < failed,
          output: index < failed ? "exit 1" : "ok",
          permission: "allowed",
        },
      );
    }
    controller.turnFinished(turn, context);
    context += GROWTH;
  }
  const instances = services.handoffs.instances(recorder.sessionId);
  const second = instances[1];
  if (!second) throw new Error(`seed ${seed}: the first instance never fired`);
  return {
    firedAt,
    observations: services.handoffs.observations(recorder.sessionId, second.agentId),
    profiles,
    controller,
    sessionId: recorder.sessionId,
  };
}

describe("the handoff controller remembers the onset across instances", () => {
  it("its second instance fires sooner past the onset than one from the profile alone, on the same turns (seeded)", async () => {
    let rememberedTurns = 0;
    let freshTurns = 0;
    let firstTurns = 0;
    for (let seed = 1; seed <= 4; seed++) {
      const { firedAt, observations, profiles } = await runSession(seed);
      const [first, second] = firedAt as [number, number];
      expect(first, `seed ${seed}`).toBeGreaterThan(ONSET);
      expect(second, `seed ${seed}: the second instance fired`).toBeGreaterThan(ONSET);
      // The instance from the profile alone: the same profile the second instance started from, the same turns, checked where it was.
      const fresh = new DegradationDetector(
        profiles.profileFor("engineer", "claude-fake", WINDOW, () => 0.5),
        {
          burnIn: config.burnInTurns,
          handedOff: true,
        },
      );
      let freshFired: number | undefined;
      for (const observation of observations) {
        if (fresh.check(observation.contextTokens).fire) {
          freshFired = observation.contextTokens;
          break;
        }
        fresh.observe(observation.contextTokens, observation.quality);
      }
      // Where it had not fired by then, the session goes on for it: the same failure process, as the tracker scores it.
      const random = mulberry32(100 + seed);
      for (let context = second; freshFired === undefined && context < WINDOW; context += GROWTH) {
        if (fresh.check(context).fire) freshFired = context;
        else fresh.observe(context, 0.85 ** failures(random, context));
      }
      // Never more than a turn later on one session (seed 3: a turn later, once the onset grid is finer than a turn), and sooner on average below.
      expect(freshFired ?? WINDOW, `seed ${seed}`).toBeGreaterThanOrEqual(second - GROWTH);
      rememberedTurns += (second - ONSET) / GROWTH;
      firstTurns += (first - ONSET) / GROWTH;
      freshTurns += ((freshFired ?? WINDOW) - ONSET) / GROWTH;
    }
    // On average more than a turn sooner than the instance from the profile, and sooner than the session's first instance.
    expect(rememberedTurns / 4).toBeLessThan(freshTurns / 4 - 1);
    expect(rememberedTurns).toBeLessThan(firstTurns);
  });

  it("a continued session's instance starts again from what the instances that handed off to it saw", async () => {
    const { firedAt, profiles, sessionId } = await runSession(1);
    const [first, second] = services.handoffs.instances(sessionId);
    if (!first || !second) throw new Error("expected two instances");
    const observed = (agentId: string) => services.handoffs.observations(sessionId, agentId).length;
    const deps = chainDeps(profiles, sessionId);
    const continued = openInstance(deps);
    expect(continued.agentId).toBe(second.agentId);
    // Every turn of the first instance, and the second's but for the two that paid for the handoff.
    expect(continued.detector.onsetMemory()?.evidence.count).toBe(observed(first.agentId) + observed(second.agentId) - 2);
    // It knows where the decline is: it fires where the live instance did.
    expect(continued.detector.check(firedAt[1] as number).fire).toBe(true);
  });

  it("a continued session's instance from before instances kept their onset start replays the instances that handed off to it", async () => {
    const { firedAt, profiles, sessionId } = await runSession(1);
    const [first, second] = services.handoffs.instances(sessionId);
    if (!first || !second) throw new Error("expected two instances");
    expect(second.onsetStart).not.toBeNull();
    withProjectDatabase(services.paths, (db) => db.prepare("UPDATE agent_instances SET onset_start = NULL").run());
    const observed = (agentId: string) => services.handoffs.observations(sessionId, agentId).length;
    const continued = openInstance(chainDeps(profiles, sessionId));
    expect(continued.detector.onsetMemory()?.evidence.count).toBe(observed(first.agentId) + observed(second.agentId) - 2);
    expect(continued.detector.check(firedAt[1] as number).fire).toBe(true);
  });

  it("gives the profile the session's onset once, when the session ends, from what its chain saw", async () => {
    const onsetsLearned = () => {
      const json = services.handoffs.profileStatistics("engineer", "claude-fake");
      const statistics = json ? (JSON.parse(json) as ProfileStatistics) : undefined;
      return {
        instances: statistics?.instances ?? 0,
        sessions: statistics?.sessions ?? 0,
        onset: statistics?.onset ?? { count: 0, sum: 0, sumSquares: 0 },
      };
    };
    const { controller, profiles, sessionId } = await runSession(2);
    // The first instance handed off: it counts as an instance, not as a session, and its onset waits for the session's end.
    expect(onsetsLearned()).toMatchObject({ instances: 1, sessions: 0, onset: { count: 0 } });
    controller.close();
    const learned = onsetsLearned();
    expect(learned.instances).toBe(2);
    expect(learned.sessions).toBe(1);
    expect(learned.onset.count).toBe(1);
    // The tracker's quality is coarse (a turn's failed calls), so within two turns of growth.
    expect(Math.abs(learned.onset.sum - ONSET)).toBeLessThanOrEqual(2 * GROWTH);
    // Continued and ended again, the session replaces its contribution: still one onset.
    const deps = chainDeps(profiles, sessionId);
    const continued = openInstance(deps);
    endInstance(deps, continued, "session_end");
    expect(onsetsLearned()).toMatchObject({ sessions: 1, onset: { count: 1 } });
    // Started again from the onset posterior its instance started from live, the chain places it where the live chain did.
    expect(onsetsLearned().onset.sum).toBe(learned.onset.sum);
  });

  it("a new session's first instance starts from the profile, the session's estimation error counted in its mean's, not the onsets' spread", async () => {
    const { controller, profiles } = await runSession(3);
    controller.close();
    const stored = JSON.parse(services.handoffs.profileStatistics("engineer", "claude-fake") as string) as ProfileStatistics;
    // The session's estimate came with its error: a few turns of growth, not nothing and not the whole window.
    const errorSd = Math.sqrt(stored.onsetErrorSquares);
    expect(errorSd).toBeGreaterThan(0);
    expect(errorSd).toBeLessThan(4 * GROWTH);
    const profile = profiles.profileFor("engineer", "claude-fake", WINDOW, () => 0.5);
    const rows = (statistics: ProfileStatistics) => [{ agentType: "engineer", model: "claude-fake", statistics }];
    const counted = pooledProfile({
      agentType: "engineer",
      model: "claude-fake",
      windowTokens: WINDOW,
      rows: rows(stored),
      random: () => 0.5,
    });
    const asExact = pooledProfile({
      agentType: "engineer",
      model: "claude-fake",
      windowTokens: WINDOW,
      rows: rows({ ...stored, onsetErrorSquares: 0 }),
      random: () => 0.5,
    });
    expect(profile.onsetSdTokens).toBeCloseTo(counted.onsetSdTokens, 6);
    // One session has no spread of its own to take the error out of: the error is how far its estimate, and so the
    // mean, may lie, counted once there (at most its square added to the prior's variance), not in the onsets' spread.
    const added = counted.onsetSdTokens ** 2 - asExact.onsetSdTokens ** 2;
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(stored.onsetErrorSquares);
    // The next session's first instance starts from that profile (a chain opened for a session with no instance yet).
    const next = openInstance(chainDeps(profiles, "session-2"));
    expect(next.detector.onsetMemory()?.prior.onsetSdTokens).toBeCloseTo(profile.onsetSdTokens, 6);
  });
});

/** What `openInstance` and `endInstance` need to continue the engineer's chain of `sessionId`. */
function chainDeps(profiles: Parameters<typeof openInstance>[0]["profiles"], sessionId: string): Parameters<typeof openInstance>[0] {
  return {
    repository: services.handoffs,
    profiles,
    sessionId,
    agentType: "engineer",
    model: "claude-fake",
    windowTokens: WINDOW,
    config,
    random: () => 0.5,
  };
}
