import { estimateTokens } from "../tokens/estimate-tokens.js";
import { type ContextItem, ContextLayer } from "./context-layers.js";
import type { MemoryNote } from "./context-providers.js";
import { itemMemoryNote } from "./memory-notes.js";

/**
 * Prompt assembly with observational memory's budget: the base
 * prompt, then one markdown section per layer that has items, then the
 * conversation memory, then pending inquiries.
 *
 * Layout: the base prompt (trailing white space trimmed), a blank line, and
 * the sections separated by blank lines; each section is `## Title` and one
 * bullet per item. Items:
 * - Runtime Context: `- content`
 * - Available Tools, Known Solutions, Available Skills: `- key: content`
 * - User Knowledge: `- [category] key: content`, without `[category] ` when the item has no `metadata.category`
 * - External References: `- key (source): content`, without ` (source)` when it has none
 * - Pending Knowledge Inquiries: `- [topic] question (context: why)` from key, content and `metadata.context`, without the context part when there is none
 * An item without a key is `- content`. Lines after an item's first are
 * indented two spaces so the bullet holds them.
 *
 * Conversation Memory has `### Reflections` and `### Observations`
 * subsections, each note a bullet, oldest first (see `selectMemory`).
 */

export const DEFAULT_MEMORY_TOKEN_BUDGET = 4_000;
export const DEFAULT_MAX_REFLECTIONS_IN_CONTEXT = 5;
export const DEFAULT_MAX_OBSERVATIONS_IN_CONTEXT = 20;

export interface MemoryContext {
  reflections?: readonly MemoryNote[];
  observations?: readonly MemoryNote[];
}

export interface MemoryLimits {
  /** Tokens for reflections and observations together; default 4,000 (a value ≤ 0 means the default). */
  memoryTokenBudget?: number;
  /** The most recent N reflections; default 5; 0 means no limit. */
  maxReflectionsInContext?: number;
  /** The most recent N observations; default 20; 0 means no limit. */
  maxObservationsInContext?: number;
}

export type AssemblePromptOptions = MemoryLimits;

export interface SelectedMemory {
  reflections: MemoryNote[];
  observations: MemoryNote[];
  tokens: number;
}

const KNOWLEDGE_SECTIONS: readonly { layer: ContextLayer; title: string; format: (item: ContextItem) => string }[] = [
  { layer: ContextLayer.RuntimeContext, title: "Runtime Context", format: (item) => item.content },
  { layer: ContextLayer.ToolRegistry, title: "Available Tools", format: (item) => keyed(item.key, item.content) },
  {
    layer: ContextLayer.UserKnowledge,
    title: "User Knowledge",
    format: (item) => {
      const category = item.metadata?.category;
      return `${typeof category === "string" && category ? `[${category}] ` : ""}${keyed(item.key, item.content)}`;
    },
  },
  { layer: ContextLayer.AgentLearnings, title: "Known Solutions", format: (item) => keyed(item.key, item.content) },
  { layer: ContextLayer.SkillPatterns, title: "Available Skills", format: (item) => keyed(item.key, item.content) },
  {
    layer: ContextLayer.ExternalKnowledge,
    title: "External References",
    format: (item) => keyed(item.key && item.source ? `${item.key} (${item.source})` : item.key, item.content),
  },
];

function keyed(key: string, content: string): string {
  return key ? `${key}: ${content}` : content;
}

function inquiryLine(item: ContextItem): string {
  const why = item.metadata?.context;
  const context = typeof why === "string" && why ? ` (context: ${why})` : "";
  return `${item.key ? `[${item.key}] ` : ""}${item.content}${context}`;
}

function bullet(text: string): string {
  return `- ${text.trimEnd().replace(/\n/g, "\n  ")}`;
}

function section(title: string, lines: readonly string[]): string {
  return [`## ${title}`, ...lines].join("\n");
}

const tokensOf = (note: MemoryNote) => note.tokenCount ?? estimateTokens(note.content);

function chronological(notes: readonly MemoryNote[]): MemoryNote[] {
  const ordered = [...notes];
  if (ordered.every((note) => note.createdAt !== undefined)) {
    ordered.sort((left, right) => (left.createdAt as Date).getTime() - (right.createdAt as Date).getTime());
  }
  return ordered;
}

function mostRecent(notes: MemoryNote[], limit: number | undefined, fallback: number): MemoryNote[] {
  const count = limit === undefined ? fallback : limit;
  return count > 0 && notes.length > count ? notes.slice(notes.length - count) : notes;
}

/** The newest notes that fit `budget`, taken newest first and stopping at the first that does not fit; returned oldest first. */
function newestWithin(notes: readonly MemoryNote[], budget: number): { kept: MemoryNote[]; tokens: number; cut: boolean } {
  const kept: MemoryNote[] = [];
  let tokens = 0;
  for (let index = notes.length - 1; index >= 0; index--) {
    const note = notes[index] as MemoryNote;
    const cost = tokensOf(note);
    if (tokens + cost > budget) return { kept: kept.reverse(), tokens, cut: true };
    kept.push(note);
    tokens += cost;
  }
  return { kept: kept.reverse(), tokens, cut: false };
}

/**
 * Observational memory's limits and budget. Notes are put in chronological order (by
 * `createdAt` when every note has one, else as given), cut to the most
 * recent N, then budgeted: reflections first, then observations in what is
 * left. Within each kind the newest notes are kept, and the first note that
 * would exceed the budget ends that kind. When reflections alone do not fit,
 * no observation is included. A note costs its `tokenCount`, else
 * `estimateTokens(content)`.
 */
export function selectMemory(memory: MemoryContext, limits: MemoryLimits = {}): SelectedMemory {
  const budget =
    limits.memoryTokenBudget !== undefined && limits.memoryTokenBudget > 0 ? limits.memoryTokenBudget : DEFAULT_MEMORY_TOKEN_BUDGET;
  const reflections = mostRecent(
    chronological(memory.reflections ?? []),
    limits.maxReflectionsInContext,
    DEFAULT_MAX_REFLECTIONS_IN_CONTEXT,
  );
  const observations = mostRecent(
    chronological(memory.observations ?? []),
    limits.maxObservationsInContext,
    DEFAULT_MAX_OBSERVATIONS_IN_CONTEXT,
  );
  const keptReflections = newestWithin(reflections, budget);
  if (keptReflections.cut) return { reflections: keptReflections.kept, observations: [], tokens: keptReflections.tokens };
  const keptObservations = newestWithin(observations, budget - keptReflections.tokens);
  return {
    reflections: keptReflections.kept,
    observations: keptObservations.kept,
    tokens: keptReflections.tokens + keptObservations.tokens,
  };
}

/** A memory note as a bullet; one that is already a bullet list (what both observers write) keeps its own bullets. */
function noteLines(text: string): string {
  return /^\s*[-*] /.test(text) ? text.trim() : bullet(text);
}

function memorySection(selected: SelectedMemory): string | undefined {
  const parts: string[] = [];
  if (selected.reflections.length > 0)
    parts.push(["### Reflections", ...selected.reflections.map((note) => noteLines(note.content))].join("\n"));
  if (selected.observations.length > 0)
    parts.push(["### Observations", ...selected.observations.map((note) => noteLines(note.content))].join("\n"));
  return parts.length > 0 ? ["## Conversation Memory", ...parts].join("\n\n") : undefined;
}

/**
 * The augmented system prompt. Memory comes from `memory` and from any
 * Reflections or Observations items (appended after `memory`'s notes of the
 * same kind). With no section to add, the base prompt is returned unchanged.
 */
export function assemblePrompt(
  basePrompt: string,
  items: readonly ContextItem[],
  memory: MemoryContext = {},
  options: AssemblePromptOptions = {},
): string {
  const inLayer = (layer: ContextLayer) => items.filter((item) => item.layer === layer);
  const sections: string[] = [];
  for (const { layer, title, format } of KNOWLEDGE_SECTIONS) {
    const layerItems = inLayer(layer);
    if (layerItems.length > 0)
      sections.push(
        section(
          title,
          layerItems.map((item) => bullet(format(item))),
        ),
      );
  }
  const selected = selectMemory(
    {
      reflections: [...(memory.reflections ?? []), ...inLayer(ContextLayer.Reflections).map(itemMemoryNote)],
      observations: [...(memory.observations ?? []), ...inLayer(ContextLayer.Observations).map(itemMemoryNote)],
    },
    options,
  );
  const memoryText = memorySection(selected);
  if (memoryText !== undefined) sections.push(memoryText);
  const inquiries = inLayer(ContextLayer.PendingInquiries);
  if (inquiries.length > 0)
    sections.push(
      section(
        "Pending Knowledge Inquiries",
        inquiries.map((item) => bullet(inquiryLine(item))),
      ),
    );
  if (sections.length === 0) return basePrompt;
  const base = basePrompt.trimEnd();
  return base ? `${base}\n\n${sections.join("\n\n")}` : sections.join("\n\n");
}
