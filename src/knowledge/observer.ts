import { estimateTokens } from "../tokens/estimate-tokens.js";

/**
 * The observer and reflector of observational memory, their decisions and texts: when to
 * observe, what to ask the model for, and the extractive observer that
 * stands in when there is no model (rules, not a model: the sentences that
 * state decisions, goals, facts and outcomes).
 */

/** Observational memory's defaults. */
export const OBSERVATION_DEFAULTS = {
  messageTokenThreshold: 1_000,
  observationTokenThreshold: 2_000,
  maxMessageTokenBudget: 8_000,
  reflectionConsolidationThreshold: 5,
} as const;

export interface ObservedMessage {
  role: "user" | "assistant";
  text: string;
}

/** What the observer is asked. */
export function observerPrompt(messages: readonly ObservedMessage[]): string {
  return [
    "Write a compressed observation of the conversation below: the key decisions made, the user's intent and goals, the important facts and context, and the task's progress and outcomes.",
    "Do not copy tool output or repeat detail; keep names, paths and numbers that matter. Answer with the observation alone, as short bullet points.",
    "",
    ...messages.map((message) => `${message.role === "user" ? "User" : "Assistant"}: ${message.text}`),
  ].join("\n");
}

/** What the reflector is asked: observations (or reflections) condensed into one. */
export function reflectorPrompt(notes: readonly string[], generation: number): string {
  return [
    `Condense these ${generation > 1 ? "reflections" : "observations"} of one conversation into a single reflection: keep every decision, goal, fact and outcome that still matters, drop what later notes superseded. Answer with the reflection alone, as short bullet points.`,
    "",
    ...notes.map((note, index) => `--- ${index + 1}\n${note}`),
  ].join("\n");
}

const DECISION =
  /\b(decid\w*|we(?:'ll| will| should)|let's|going to|chose|choose|instead of|use [\w./-]+ (?:for|instead)|switch(?:ed)? to|agreed)\b/i;
const GOAL = /\b(i want|i need|we need|the goal|goal is|should be able|make (?:it|sure)|please|so that)\b/i;
const OUTCOME = /\b(fixed|passes|passed|fails|failed|works|broke|done|finished|merged|deployed|added|removed|renamed|created|updated)\b/i;
/** A fact: a definition, or a sentence that names a path, a number or a name in code. */
const FACT = /\b(is|are|was|were|has|have|had|means|stands for|lives in|defined in)\b.*|[\w-]+\/[\w./-]+|\b\d+(?:\.\d+)?\b|`[^`]+`/i;
/** A name after the sentence's first word: who or what a sentence is about (a person, a project, a place). */
const NAME = /\s[A-Z][a-z]+/;

/**
 * The extractive observer: the sentences of the messages that state a
 * decision, a goal, a fact or an outcome, in order, within `maxTokens`,
 * each prefixed by who said it. Nothing is invented: every line is a
 * sentence of the conversation.
 */
export function extractiveObservation(messages: readonly ObservedMessage[], maxTokens: number): string {
  const lines: string[] = [];
  let tokens = 0;
  for (const message of messages) {
    for (const sentence of sentencesOf(message.text)) {
      if (!(DECISION.test(sentence) || GOAL.test(sentence) || OUTCOME.test(sentence) || FACT.test(sentence) || NAME.test(sentence)))
        continue;
      const line = `- ${message.role === "user" ? "User" : "Assistant"}: ${sentence}`;
      const cost = estimateTokens(line) + 1;
      if (tokens + cost > maxTokens) return lines.join("\n");
      lines.push(line);
      tokens += cost;
    }
  }
  return lines.join("\n");
}

/**
 * The extractive reflector: the notes' lines (each already a sentence the
 * observer kept, with who said it), each once, in order, within
 * `maxTokens`. When they do not fit, lines are dropped evenly across the
 * notes rather than from the end, so no stretch of the conversation is lost
 * whole.
 */
export function extractiveReflection(notes: readonly string[], maxTokens: number): string {
  const distinct = new Set(notes.flatMap((note) => note.split("\n")).map((line) => line.trim()));
  const lines = [...distinct].filter((line) => line !== "");
  const total = lines.reduce((sum, line) => sum + estimateTokens(line) + 1, 0);
  if (total <= maxTokens) return lines.join("\n");
  const keep = maxTokens / total;
  const kept: string[] = [];
  let owed = 0;
  let tokens = 0;
  for (const line of lines) {
    owed += keep;
    const cost = estimateTokens(line) + 1;
    if (owed < 1 || tokens + cost > maxTokens) continue;
    owed -= 1;
    kept.push(line);
    tokens += cost;
  }
  return kept.join("\n");
}

/** The sentences the extractive observer considers: code blocks dropped, split at sentence ends and lines, 12-400 characters. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.replace(/\s+/g, " ").trim())
    .filter((sentence) => sentence.length >= 12 && sentence.length <= 400);
}
