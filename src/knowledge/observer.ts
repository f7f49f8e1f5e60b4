import { estimateTokens } from "../tokens/estimate-tokens.js";
import { mostSalientWithin, salienceOf } from "./salience.js";

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
 * decision, a goal, a fact or an outcome, each prefixed by who said it. When
 * they do not all fit in `maxTokens`, the most salient are kept (what they
 * tell for their length; see `salienceOf`), in order, rather than the first:
 * the end of a stretch is no less worth keeping than its start. Nothing is
 * invented: every line is a sentence of the conversation.
 */
export function extractiveObservation(messages: readonly ObservedMessage[], maxTokens: number): string {
  const sentences: string[] = [];
  const lines: string[] = [];
  for (const message of messages) {
    for (const sentence of sentencesOf(message.text)) {
      if (!(DECISION.test(sentence) || GOAL.test(sentence) || OUTCOME.test(sentence) || FACT.test(sentence) || NAME.test(sentence)))
        continue;
      sentences.push(sentence);
      lines.push(`- ${message.role === "user" ? "User" : "Assistant"}: ${sentence}`);
    }
  }
  return mostSalientWithin(lines, salienceOf(sentences), maxTokens)
    .map((index) => lines[index])
    .join("\n");
}

/**
 * The extractive reflector: the notes' lines (each already a sentence the
 * observer kept, with who said it), each once, in order, within
 * `maxTokens`. When they do not fit, each note keeps its share of the budget
 * (in proportion to its own tokens), filled with its most salient lines
 * (salience weighed across all the notes), so no stretch of the conversation
 * is lost whole and what each stretch keeps is what tells most.
 */
export function extractiveReflection(notes: readonly string[], maxTokens: number): string {
  const seen = new Set<string>();
  const byNote = notes.map((note) =>
    note
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !seen.has(line) && seen.add(line)),
  );
  const lines = byNote.flat();
  const cost = (line: string) => estimateTokens(line) + 1;
  const total = lines.reduce((sum, line) => sum + cost(line), 0);
  if (total <= maxTokens) return lines.join("\n");
  const salience = new Map(salienceOf(lines.map(spokenSentence)).map((score, index) => [lines[index], score] as const));
  return byNote
    .flatMap((own) => {
      const share = (maxTokens * own.reduce((sum, line) => sum + cost(line), 0)) / total;
      return mostSalientWithin(
        own,
        own.map((line) => salience.get(line) ?? 0),
        Math.floor(share),
      ).map((index) => own[index]);
    })
    .join("\n");
}

/** A note's line without its bullet and who said it: the sentence the salience is of. */
function spokenSentence(line: string): string {
  return line.replace(/^[-*]\s+(?:User|Assistant):\s+/, "");
}

/** The sentences the extractive observer considers: code blocks dropped, split at sentence ends and lines, 12-400 characters. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.replace(/\s+/g, " ").trim())
    .filter((sentence) => sentence.length >= 12 && sentence.length <= 400);
}
