import { overlapsMarker } from "../agent/tools/grep-matcher.js";
import { TrigramProbe } from "../search/trigram-sketch.js";

/**
 * The sketches' probe for a pattern's literal runs. A run that overlaps a
 * masking marker (`REDACTED`) is left out: grep matches the masked text,
 * where a marker stands for bytes the sketch never saw.
 */
export function probeOf(alternatives: ReadonlyArray<readonly string[]>, ignoreCase: boolean): TrigramProbe | undefined {
  return TrigramProbe.of(
    alternatives.map((runs) => runs.filter((run) => !overlapsMarker(run, ignoreCase))),
    ignoreCase,
  );
}
