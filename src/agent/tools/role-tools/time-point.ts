const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };
const RELATIVE = /^(\d{1,6})\s*(m|h|d|w)$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A point in time a tool's input names: an ISO date or date-time, or a span
 * back from `now` (`30m`, `2h`, `7d`, `2w`). A bare date ends at the end of
 * that day when it closes a range. Undefined when it is neither.
 */
export function parseTimePoint(text: string, now: number, end: "start" | "end" = "start"): number | undefined {
  const trimmed = text.trim();
  const relative = RELATIVE.exec(trimmed);
  if (relative) return now - Number(relative[1]) * (UNIT_MS[(relative[2] as string).toLowerCase()] as number);
  const parsed = Date.parse(trimmed);
  if (Number.isNaN(parsed)) return undefined;
  return DATE_ONLY.test(trimmed) && end === "end" ? parsed + DAY_MS - 1 : parsed;
}
