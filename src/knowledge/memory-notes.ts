import { type ContextItem, ContextLayer } from "./context-layers.js";
import type { MemoryNote } from "./context-providers.js";

export type MemoryLayer = typeof ContextLayer.Observations | typeof ContextLayer.Reflections;

/** A memory note as an item of its layer; `tokenCount` and `createdAt` travel in the metadata. */
export function memoryNoteItem(layer: MemoryLayer, note: MemoryNote, index: number): ContextItem {
  const metadata: Record<string, string | number> = {};
  if (note.tokenCount !== undefined) metadata.tokenCount = note.tokenCount;
  if (note.createdAt !== undefined) metadata.createdAt = note.createdAt.toISOString();
  return {
    layer,
    key: `${layer === ContextLayer.Reflections ? "reflection" : "observation"}-${index + 1}`,
    content: note.content,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** The inverse of `memoryNoteItem`. */
export function itemMemoryNote(item: ContextItem): MemoryNote {
  const tokenCount = item.metadata?.tokenCount;
  const createdAt = item.metadata?.createdAt;
  const date = typeof createdAt === "string" ? new Date(createdAt) : undefined;
  return {
    content: item.content,
    ...(typeof tokenCount === "number" ? { tokenCount } : {}),
    ...(date !== undefined && !Number.isNaN(date.getTime()) ? { createdAt: date } : {}),
  };
}
