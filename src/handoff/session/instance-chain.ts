import type { HandoffConfig } from "../../config/schema.js";
import type { AgentType } from "../../roles/agent-types.js";
import { DegradationDetector } from "../degradation-detector.js";
import type { AgentHandoffProfile } from "../handoff-profile.js";
import type { OnsetMemory } from "../onset-posterior.js";
import type { HandoffRepository } from "../../store/handoff-repository.js";
import type { ProfileBook } from "./profile-book.js";

/** What the chain of one conversation's instances needs: its rows, its profiles and who its instances are. */
export interface InstanceChainDeps {
  repository: HandoffRepository;
  profiles: ProfileBook;
  /** The conversation whose chain this is (its session row exists). */
  sessionId: string;
  agentType: AgentType;
  model: string;
  windowTokens: number;
  config: HandoffConfig;
  random?: () => number;
  /** A new instance's id, unique in the session tree (a sub-agent's chain shares the tree's numbering). */
  allocateAgentId?: () => string;
  /** A sub-agent's first instance: the id its session was started with. */
  firstAgentId?: string;
}

/** The instance answering now, with the curve it learns as it goes. */
export interface LiveInstance {
  agentId: string;
  handoffIndex: number;
  profile: AgentHandoffProfile;
  detector: DegradationDetector;
  /** The handoff state its window starts with (a first instance has none). */
  preamble: string | undefined;
}

/**
 * The conversation's instance when the controller opens: a continued
 * session goes on with its latest instance (reopened, its onset posterior
 * started again from where it started live, its observations replayed into
 * its curve, its handoff state its window's preamble); a new session, or
 * another type or model than the session's last, starts a new link of the
 * chain without a state.
 */
export function openInstance(deps: InstanceChainDeps): LiveInstance {
  const { repository, sessionId } = deps;
  const latest = repository.latestInstance(sessionId);
  if (latest && latest.agentType === deps.agentType && latest.model === deps.model && latest.endReason !== "handoff") {
    if (latest.endedAt !== null) repository.reopenInstance(sessionId, latest.agentId);
    // As it started live; a row from before the start was kept replays its predecessors instead.
    const stored = latest.onsetStart !== null ? (JSON.parse(latest.onsetStart) as OnsetMemory) : undefined;
    const carried = stored ?? carriedOnset(deps, latest.agentId);
    const instance = liveInstance(deps, latest.agentId, latest.handoffIndex, {
      ...(latest.preparedFraction !== null ? { preparedFraction: latest.preparedFraction } : {}),
      ...(latest.stateText !== null ? { preamble: latest.stateText } : {}),
      ...(carried ? { carried } : {}),
      ...(latest.handoffEntryId !== null || (carried && !stored) ? { handedOff: true } : {}),
    });
    for (const observation of repository.observations(sessionId, latest.agentId))
      instance.detector.observe(observation.contextTokens, observation.quality);
    return instance;
  }
  const handoffIndex = latest ? latest.handoffIndex + 1 : 0;
  const agentId = freshAgentId(deps, handoffIndex);
  const instance = liveInstance(deps, agentId, handoffIndex, {});
  repository.startInstance({
    sessionId,
    agentId,
    agentType: deps.agentType,
    model: deps.model,
    handoffIndex,
    startedAt: Date.now(),
    handoffEntryId: null,
    state: null,
    stateText: null,
    preparedFraction: null,
    onsetStart: onsetStartOf(instance),
  });
  return instance;
}

/** The onset posterior an instance starts from, as its row keeps it (none without the learned-onset prior). */
function onsetStartOf(instance: LiveInstance): string | null {
  const memory = instance.detector.onsetMemory();
  return memory ? JSON.stringify(memory) : null;
}

/**
 * For a row from before instances kept the onset posterior they started
 * from: what the instances that handed off to `agentId` (a run of the same
 * type and model before it in the chain) saw of the onset, replayed from
 * their stored observations. The prior is today's profile, which may have
 * learned since, and observations are weighed against the posterior's
 * prediction, so this is near the live chain's, not the same; undefined
 * when no such instance came before.
 */
function carriedOnset(deps: InstanceChainDeps, agentId: string): OnsetMemory | undefined {
  const chain = deps.repository.instances(deps.sessionId);
  const index = chain.findIndex((instance) => instance.agentId === agentId);
  let start = index;
  for (; start > 0; start--) {
    const previous = chain[start - 1];
    if (!previous || previous.agentType !== deps.agentType || previous.model !== deps.model || previous.endReason !== "handoff") break;
  }
  if (start >= index) return undefined;
  const profile = deps.profiles.profileFor(deps.agentType, deps.model, deps.windowTokens, deps.random);
  let memory: OnsetMemory | undefined;
  for (const [position, instance] of chain.slice(start, index).entries()) {
    const detector = new DegradationDetector(profile, { ...(memory ? { carried: memory } : {}), handedOff: position > 0 });
    for (const observation of deps.repository.observations(deps.sessionId, instance.agentId))
      detector.observe(observation.contextTokens, observation.quality);
    memory = detector.onsetMemory();
  }
  return memory;
}

/** How an instance starts: the prepared-size arm and state of its handoff, and what its predecessor knew of the onset. */
export interface InstanceStart {
  preparedFraction?: number;
  preamble?: string;
  /**
   * The onset posterior of the instance it takes over from: the session's
   * onset is the same for every instance, so the new curve starts from
   * everything the chain has seen of it, not from the profile's prior.
   */
  carried?: OnsetMemory;
  /** The instance starts from a handoff: its first turns pay for the context it lost. */
  handedOff?: boolean;
}

/** An instance with the pooled profile of its (type, model) and a fresh curve (from its predecessor's onset posterior, after a handoff). */
export function liveInstance(deps: InstanceChainDeps, agentId: string, handoffIndex: number, start: InstanceStart): LiveInstance {
  const profile = deps.profiles.profileFor(deps.agentType, deps.model, deps.windowTokens, deps.random);
  const detector = new DegradationDetector(profile, {
    burnIn: deps.config.burnInTurns,
    ...(start.preparedFraction !== undefined ? { preparedFraction: start.preparedFraction } : {}),
    ...(start.carried ? { carried: start.carried } : {}),
    ...(start.handedOff ? { handedOff: true } : {}),
  });
  return { agentId, handoffIndex, profile, detector, preamble: start.preamble };
}

/**
 * Ends an instance: what it learned goes into the profiles with its end, in
 * one transaction. The session's onset goes in once, with the instance that
 * ends the session (from everything its chain observed); an instance that
 * hands off adds none of its own.
 */
export function endInstance(deps: InstanceChainDeps, instance: LiveInstance, reason: "handoff" | "session_end"): void {
  const { sessionId } = deps;
  const identity = { sessionId, agentId: instance.agentId, agentType: deps.agentType, model: deps.model };
  const summary = reason === "handoff" ? instance.detector.handedOffSummary() : instance.detector.sessionSummary();
  deps.profiles.endInstance(identity, summary, (contribution) =>
    deps.repository.endInstance(sessionId, instance.agentId, reason, contribution),
  );
}

/**
 * In a session tree, the tree's next free id (a sub-agent's first
 * instance: its session's). Otherwise `<type>-<n>`, the n-th instance of
 * the chain (n = handoff index + 1), unless that id is taken by another
 * type's chain.
 */
export function freshAgentId(deps: InstanceChainDeps, handoffIndex: number): string {
  if (handoffIndex === 0 && deps.firstAgentId) return deps.firstAgentId;
  if (deps.allocateAgentId) return deps.allocateAgentId();
  let id = `${deps.agentType}-${handoffIndex + 1}`;
  for (let suffix = 2; deps.repository.instance(deps.sessionId, id); suffix++) id = `${deps.agentType}-${handoffIndex + 1}.${suffix}`;
  return id;
}
