export interface SearchOutcome<Hit> {
  hits: Hit[];
  /** One message per signal that failed; the others answered alone. */
  degraded: string[];
  /** What a document covering the whole query would score in full text (for coverage = score / ideal). */
  fulltextIdealScore?: number;
}
