export interface SearchOutcome<Hit> {
  hits: Hit[];
  /** One message per signal that failed; the others answered alone. */
  degraded: string[];
}
