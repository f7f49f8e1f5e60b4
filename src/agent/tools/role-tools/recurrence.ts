const UUID_OR_HASH = /\b(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{7,64})\b/gi;
/** Something with a directory separator, or a file name with a common extension. */
const PATH =
  /(?:[A-Za-z]:)?(?:[\w.@~+-]*[/\\])+[\w.@~+-]+|\b[\w-]+\.(?:[cm]?[jt]sx?|json|md|py|go|rs|java|kt|c|h|cc|cpp|hpp|rb|php|sh|ya?ml|toml|txt|css|scss|html|sql|lock)\b/g;
const NUMBER = /\d+(?:\.\d+)?/g;

/**
 * What makes two errors "the same": the first line of the message with
 * ids, paths and numbers masked, whitespace collapsed ("No file src/a.ts at
 * line 12" and "No file lib/b.ts at line 7" are one signature).
 */
export function errorSignature(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim().length > 0) ?? "";
  return line.slice(0, 300).replace(UUID_OR_HASH, "<id>").replace(PATH, "<path>").replace(NUMBER, "<n>").replace(/\s+/g, " ").trim();
}

export interface Occurrence<Sample> {
  key: string;
  sessionId: string;
  at: number;
  sample: Sample;
}

export interface Recurrence<Sample> {
  key: string;
  /** Distinct sessions it happened in, in the order first seen. */
  sessions: string[];
  occurrences: number;
  lastAt: number;
  /** One sample per session, the first seen in each. */
  samples: Sample[];
}

/** Occurrences grouped by key, kept when they happened in at least `minSessions` sessions; most sessions first. */
export function recurring<Sample>(occurrences: Iterable<Occurrence<Sample>>, minSessions: number): Array<Recurrence<Sample>> {
  const groups = new Map<string, Recurrence<Sample>>();
  for (const occurrence of occurrences) {
    let group = groups.get(occurrence.key);
    if (!group) {
      group = { key: occurrence.key, sessions: [], occurrences: 0, lastAt: 0, samples: [] };
      groups.set(occurrence.key, group);
    }
    group.occurrences += 1;
    group.lastAt = Math.max(group.lastAt, occurrence.at);
    if (!group.sessions.includes(occurrence.sessionId)) {
      group.sessions.push(occurrence.sessionId);
      group.samples.push(occurrence.sample);
    }
  }
  return [...groups.values()]
    .filter((group) => group.sessions.length >= minSessions)
    .sort((a, b) => b.sessions.length - a.sessions.length || b.occurrences - a.occurrences || b.lastAt - a.lastAt);
}

/** The query's words (three letters or more), lower case; an empty list matches everything. */
export function queryWords(query: string | undefined): string[] {
  return (query ?? "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((word) => word.length >= 3);
}

export function mentionsAny(text: string, words: readonly string[]): boolean {
  if (words.length === 0) return true;
  const lower = text.toLowerCase();
  return words.some((word) => lower.includes(word));
}
