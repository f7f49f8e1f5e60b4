import type { FullTextIndexDamage } from "../store/snapshot-damage.js";
import type { ProjectServices } from "./project-services.js";

/** Files that changed since the index saw them: what `sylk index` would do. */
export interface StaleCounts {
  added: number;
  changed: number;
  deleted: number;
  directories: number;
}

/**
 * How the index stands, as `sylk status` and `sylk doctor` judge it:
 * `damaged` when the files are indexed but a full-text snapshot cannot be
 * read as it was written (searches fall back to vectors until `sylk index`
 * rebuilds it).
 */
export interface IndexHealth {
  state: "missing" | "fresh" | "stale" | "damaged";
  stale?: StaleCounts;
  damaged?: FullTextIndexDamage[];
}

/**
 * Walks the project against its manifest and reads every full-text
 * snapshot whole (checksums and all); damage found is noted for the next
 * `sylk index` to repair.
 */
export async function checkIndexHealth(services: ProjectServices): Promise<IndexHealth> {
  const freshness = await services.indexer.checkFreshness();
  const health: IndexHealth = { state: freshness.state };
  if (freshness.state === "stale") {
    health.stale = {
      added: freshness.diff.added.length,
      changed: freshness.diff.changed.length,
      deleted: freshness.diff.deleted.length + freshness.diff.newlySkipped.length,
      directories: freshness.changedDirectories.length,
    };
  }
  const damaged = damagedFullText(services);
  if (damaged.length > 0) {
    health.damaged = damaged;
    if (health.state === "fresh") health.state = "damaged";
  }
  return health;
}

function damagedFullText(services: ProjectServices): FullTextIndexDamage[] {
  return [services.codeFullText, services.historyFullText, services.knowledgeFullText].flatMap((fullText) => {
    const damage = fullText.checkSnapshot();
    return damage ? [{ index: fullText.collection, ...damage }] : [];
  });
}

/**
 * Damage a warm process has noted (a search that met it, `sylk status`),
 * without reading the snapshots: what the screen can afford to ask.
 */
export function notedDamage(services: ProjectServices): FullTextIndexDamage[] {
  return [services.codeFullText, services.historyFullText, services.knowledgeFullText].flatMap((fullText) => {
    const damage = fullText.damageNoted();
    return damage ? [{ index: fullText.collection, ...damage }] : [];
  });
}
