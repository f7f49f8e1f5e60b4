const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A file's indexing priority: recency (+100 within a day, +50
 * within a week, +25 within 30 days), the first matching priority path
 * (+50 − its index), and the extension (+30 / +20 / +10). Higher first.
 */
export function calculatePriority(
  relativePath: string,
  modifiedMs: number,
  priorityPaths: readonly string[],
  nowMs: number = Date.now(),
): number {
  let priority = 0;

  const age = nowMs - modifiedMs;
  if (age < DAY_MS) priority += 100;
  else if (age < 7 * DAY_MS) priority += 50;
  else if (age < 30 * DAY_MS) priority += 25;

  for (const [index, prefix] of priorityPaths.entries()) {
    if (relativePath.startsWith(prefix)) {
      priority += 50 - index;
      break;
    }
  }

  switch (extensionOf(relativePath)) {
    case ".go":
    case ".ts":
    case ".tsx":
    case ".py":
    case ".rs":
      priority += 30;
      break;
    case ".js":
    case ".jsx":
    case ".java":
    case ".cpp":
    case ".c":
      priority += 20;
      break;
    case ".md":
    case ".yaml":
    case ".yml":
    case ".json":
    case ".toml":
      priority += 10;
      break;
  }
  return priority;
}

/** Go's `filepath.Ext`, lower-cased: the suffix from the last dot of the last segment. */
function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot === -1 ? "" : name.slice(dot).toLowerCase();
}

/** Sorts by priority, higher first; ties keep path order so runs are reproducible. */
export function byPriority<T extends { priority: number; path: string }>(a: T, b: T): number {
  return b.priority - a.priority || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}
