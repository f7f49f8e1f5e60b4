import { BadInputError } from "../../errors.js";
import type { SessionRecord, SessionRepository } from "../../store/session-repository.js";

/**
 * The session to go on with: the latest root, or one by id or the start of
 * one. A sub-agent (a knowledge agent, a routed agent) goes on with its own
 * session by its exact id; only root sessions are found by prefix or as the
 * latest.
 */
export function resumedSession(
  project: { sessions: Pick<SessionRepository, "get" | "latest" | "findByPrefix"> },
  resume: { latest: true } | { id: string },
  subAgent: boolean,
): SessionRecord | undefined {
  if (subAgent && "id" in resume) return project.sessions.get(resume.id);
  if ("latest" in resume) {
    const latest = project.sessions.latest();
    if (!latest) throw new BadInputError("There is no earlier session in this project to continue.");
    return latest;
  }
  const matches = project.sessions.findByPrefix(resume.id);
  if (matches.length === 0) throw new BadInputError(`No session ${resume.id} in this project; \`sylk sessions\` lists them.`);
  if (matches.length > 1 && matches[0]?.id !== resume.id) {
    throw new BadInputError(`Session id ${resume.id} is ambiguous (${matches.length} sessions start with it); give more characters.`);
  }
  return matches[0] as SessionRecord;
}
