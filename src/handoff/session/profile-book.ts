import {
  addStatistics,
  emptyStatistics,
  pooledProfile,
  withInstance,
  type AgentHandoffProfile,
  type InstanceSummary,
  type Moments,
  type ProfileStatistics,
} from "../handoff-profile.js";
import { addDeclineEvidence, emptyDeclineEvidence } from "../decline-evidence.js";
import type { AgentInstanceRecord } from "../../store/handoff-records.js";
import type { HandoffRepository } from "../../store/handoff-repository.js";
import type { UserProfileDatabase } from "../../store/user-profile-database.js";

/**
 * Where the learned `AgentHandoffProfile`s live: sufficient statistics per
 * (agent type, model) in the project database, and, when the user shares
 * them, in `$SYLK_HOME/profiles.db` across projects. An instance's
 * contribution is written with its end in one transaction; the user's
 * database catches up then, or at the next start after a crash. A
 * contribution replaces the one the same instance made before (a resumed
 * session's instance ends again), so nothing counts twice.
 */
export class ProfileBook {
  constructor(
    private readonly repository: HandoffRepository,
    /** Opened on first use; undefined when profiles are not shared (or the file cannot be opened). */
    private readonly userDatabase: () => UserProfileDatabase | undefined,
    /** Names this project in instance keys of the user's database. */
    private readonly projectKey: string,
  ) {}

  /** The pooled profile a new instance of (type, model) starts from. */
  profileFor(agentType: string, model: string, windowTokens: number, random?: () => number): AgentHandoffProfile {
    const user = this.userDatabase();
    const rows = (user ? user.profileRows() : this.repository.profileRows()).flatMap((row) => {
      const statistics = parseStatistics(row.statistics);
      return statistics ? [{ agentType: row.agentType, model: row.model, statistics }] : [];
    });
    return pooledProfile({ agentType, model, windowTokens, rows, ...(random ? { random } : {}) });
  }

  /**
   * Ends an instance and adds what it learned to the project's profile, in
   * one transaction; then to the user's (`end` runs inside the transaction).
   */
  endInstance(
    instance: Pick<AgentInstanceRecord, "sessionId" | "agentId" | "agentType" | "model">,
    summary: InstanceSummary,
    end: (contribution: string) => void,
  ): void {
    const contribution = JSON.stringify(withInstance(emptyStatistics(), summary));
    this.repository.transaction(() => {
      const before = this.repository.instance(instance.sessionId, instance.agentId);
      const previous = before?.profileApplied && before.summary ? before.summary : undefined;
      end(contribution);
      const profile = this.repository.profileStatistics(instance.agentType, instance.model);
      this.repository.saveProfile(instance.agentType, instance.model, combine(profile, previous, contribution));
      this.repository.markApplied("project", instance.sessionId, instance.agentId);
    });
    this.catchUpUser();
  }

  /** Contributions the user's database has not taken yet (a crash between the two commits, or sharing turned on). */
  catchUpUser(): void {
    const user = this.userDatabase();
    if (!user) return;
    for (const instance of this.repository.unappliedSummaries("user")) {
      if (!instance.summary) continue;
      user.applyContribution(
        `${this.projectKey}/${instance.sessionId}/${instance.agentId}`,
        instance.agentType,
        instance.model,
        instance.summary,
        combine,
      );
      this.repository.markApplied("user", instance.sessionId, instance.agentId);
    }
  }
}

/** profile − previous + next, as JSON. */
function combine(profile: string | undefined, previous: string | undefined, next: string): string {
  let statistics = parseStatistics(profile) ?? emptyStatistics();
  const old = parseStatistics(previous);
  if (old) statistics = addStatistics(statistics, negated(old));
  const added = parseStatistics(next);
  if (added) statistics = addStatistics(statistics, added);
  return JSON.stringify(statistics);
}

/** Statistics as stored; a damaged row counts as none rather than stopping the agent. */
function parseStatistics(json: string | undefined): ProfileStatistics | undefined {
  if (!json) return undefined;
  try {
    const parsed = JSON.parse(json) as unknown;
    // A field added since the row was written (onsetErrorSquares) starts at its empty value.
    return parsed && typeof parsed === "object"
      ? addStatistics(emptyStatistics(), { ...emptyStatistics(), ...(parsed as Partial<ProfileStatistics>) })
      : undefined;
  } catch {
    return undefined;
  }
}

/** The statistics with every count and sum negated: adding them takes a contribution back out (they are all additive). */
function negated(statistics: ProfileStatistics): ProfileStatistics {
  const moments = (value: Moments): Moments => ({ count: -value.count, sum: -value.sum, sumSquares: -value.sumSquares });
  return {
    instances: -statistics.instances,
    sessions: -statistics.sessions,
    onset: moments(statistics.onset),
    onsetErrorSquares: -statistics.onsetErrorSquares,
    censored: statistics.censored.map((count) => -count),
    peak: moments(statistics.peak),
    decline: moments(statistics.decline),
    declineEvidence: addDeclineEvidence(emptyDeclineEvidence(), statistics.declineEvidence, -1),
    plateauNoise: moments(statistics.plateauNoise),
    growthPerTurn: { count: -statistics.growthPerTurn.count, sum: -statistics.growthPerTurn.sum },
    preparedArms: statistics.preparedArms.map((arm) => ({
      fraction: arm.fraction,
      count: -arm.count,
      rewardSum: -arm.rewardSum,
      rewardSumSquares: -arm.rewardSumSquares,
    })),
  };
}
