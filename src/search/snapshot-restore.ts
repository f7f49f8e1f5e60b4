import type { FullTextCollection, FullTextDocument, FullTextRepository, StoredSnapshot } from "../store/full-text-repository.js";
import { onlyTerms } from "./full-text-document.js";
import type { FullTextIndex } from "./full-text-index.js";

// How `PersistentFullText` brings an index in memory up to its table: from a snapshot, or from the stored terms.

/**
 * Restores `index` from the snapshot (all its terms, or only `terms`) and
 * brings it up to the table: documents added since have ids above the
 * snapshot's highest, those noted as removed are left out, and only when
 * the table holds fewer of the others than that leaves are its ids listed
 * to find the rest. (The table holds none of the snapshot's ids that the
 * snapshot lacks, and no noted id: so equal counts mean equal sets.)
 */
export function restoreInto(
  repository: FullTextRepository,
  collection: FullTextCollection,
  index: FullTextIndex,
  snapshot: StoredSnapshot | undefined,
  terms?: readonly string[],
): { added: number; removed: number } {
  if (!snapshot) {
    index.rebuild(repository.documents(collection));
    return { added: index.size, removed: 0 };
  }
  const noted = repository.removedSinceSnapshot(collection).filter((id) => id <= snapshot.maxId);
  let leftOut: Uint8Array | undefined;
  if (noted.length > 0) {
    leftOut = new Uint8Array(snapshot.maxId + 1);
    for (const id of noted) leftOut[id] = 1;
  }
  const sizeBefore = snapshot.documents.count;
  index.restore(snapshot.documents, repository.loadPostings(collection, snapshot, terms, leftOut), noted);
  const removed = sizeBefore - index.size;
  // A one-off search needs only its terms' postings of the documents added since, too.
  const wanted = terms ? new Set(terms) : undefined;
  const narrowed = (documents: FullTextDocument[]) =>
    wanted ? documents.map((document) => ({ ...document, terms: onlyTerms(document.terms, wanted) })) : documents;
  const added = repository.documentsAfter(collection, snapshot.maxId);
  if (repository.count(collection) - added.length !== index.size) {
    const reconciled = reconcileWith(repository, collection, index, repository.ids(collection), narrowed);
    return { added: reconciled.added, removed: removed + reconciled.removed };
  }
  index.addAll(narrowed(added));
  return { added: added.length, removed };
}

/** Tombstones what the table lost; adds, from their stored terms (`prepare`d), what the index lacks. */
export function reconcileWith(
  repository: FullTextRepository,
  collection: FullTextCollection,
  index: FullTextIndex,
  storeIds: Iterable<number>,
  prepare = (documents: FullTextDocument[]) => documents,
): { added: number; removed: number } {
  const { missing, removed } = index.reconcile(storeIds);
  for (let start = 0; start < missing.length; start += 1000) {
    index.addAll(prepare(repository.documents(collection, missing.slice(start, start + 1000))));
  }
  return { added: missing.length, removed };
}
