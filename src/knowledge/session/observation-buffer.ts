import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import {
  extractiveObservation,
  extractiveReflection,
  type ObservedMessage,
  observerPrompt,
  OBSERVATION_DEFAULTS,
  reflectorPrompt,
} from "../observer.js";
import type { ChatMessage, ModelProvider } from "../../llm/model-types.js";
import type { ContentEntry } from "../../store/content-types.js";
import type { SessionMessageRow } from "../../store/session-repository.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import { errorMessage } from "../../errors.js";

export interface ObservationSettings {
  messageTokenThreshold: number;
  observationTokenThreshold: number;
  /** Tokens of a request's Conversation Memory: what the extractive reflector sizes its notes to. */
  memoryTokenBudget?: number;
}

export interface ObservationBufferDeps {
  store: Pick<UniversalContentStore, "indexContents" | "recentOfType" | "deleteDerived">;
  /** The conversation observed. */
  sessionId: string;
  /** The session's messages as stored (ordinals, turns). */
  rows(): readonly SessionMessageRow[];
  /** The observer's model; undefined: the extractive observer. */
  observer: ModelProvider | undefined;
  settings: ObservationSettings;
  /** A failure, told once per failure; observation goes on at the next signal. */
  report(message: string): void;
  /** Moves the observed messages (through an ordinal) out of the window, but the newest, behind a marker summarised by the observation. */
  compact?(throughOrdinal: number, summary: string): Promise<unknown>;
}

/** How long an exit waits for an observation under way. */
const SHUTDOWN_WAIT_MS = 30_000;

/** Observations and reflections a buffer reads back at most at once (the newest). */
const READ_LIMIT = 200;
/** The most an observation or a reflection is asked to be. */
const NOTE_TOKENS = 800;
/**
 * What the extractive reflector may keep: it cannot compress, only choose,
 * so it keeps room for what it condenses (bench-knowledge: with 800 tokens
 * it kept the oldest quarter of what it condensed and lost the rest).
 */
const EXTRACTIVE_REFLECTION_TOKENS = 2_400;
/** The least an extractive reflection keeps, however small the memory's budget: a few sentences. */
const MIN_EXTRACTIVE_REFLECTION_TOKENS = 200;

/**
 * The observer and reflector of observational memory for one session, in the background:
 * `signal` queues a pass and returns at once; one pass runs at a time; a
 * pass observes the messages not observed yet once they pass the message
 * threshold, and reflects once the observations pass theirs. Observations
 * and reflections are entries of the session, so `search_history` finds
 * them; the messages they come from stay stored as they were. A failed
 * model call is reported and tried again at the next signal.
 */
export class ObservationBuffer {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly deps: ObservationBufferDeps) {}

  /** A turn ended: observe when there is enough, without making the turn wait. */
  signal(): void {
    if (this.closed) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        this.signal();
      }
    });
  }

  /** Stops taking signals and waits for the pass under way (graceful shutdown), at most `timeoutMs`. */
  async close(timeoutMs = SHUTDOWN_WAIT_MS): Promise<void> {
    this.closed = true;
    await withinTime(this.running, timeoutMs);
  }

  /** Waits for the passes under way (what an exit and a test wait for), at most `timeoutMs`: a hung observer never holds an exit. */
  async settled(timeoutMs = SHUTDOWN_WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.running && Date.now() < deadline) await withinTime(this.running, deadline - Date.now());
  }

  private async pass(): Promise<void> {
    const { sessionId } = this.deps;
    try {
      await this.observe(sessionId);
      await this.reflect(sessionId);
    } catch (error) {
      this.deps.report(`Observational memory: ${errorMessage(error)}; it tries again after the next turn.`);
    }
  }

  private async observe(sessionId: string): Promise<void> {
    const observations = this.deps.store.recentOfType(sessionId, "observation", READ_LIMIT);
    const reflections = this.deps.store.recentOfType(sessionId, "reflection", READ_LIMIT);
    const observedThrough = Math.max(-1, ...[...observations, ...reflections].map((entry) => Number(entry.metadata.last_ordinal ?? -1)));
    const rows = this.deps.rows().filter((row) => row.ordinal > observedThrough);
    const messages = rows.flatMap((row) => observed(row.message));
    const tokens = messages.reduce((sum, message) => sum + estimateTokens(message.text), 0);
    if (tokens < this.deps.settings.messageTokenThreshold || rows.length === 0) return;
    const text = this.deps.observer ? await this.ask(observerPrompt(messages)) : extractiveObservation(messages, NOTE_TOKENS);
    if (!text.trim()) return;
    await this.deps.store.indexContents([
      this.entry(sessionId, "observation", text, {
        first_ordinal: rows[0]?.ordinal ?? 0,
        last_ordinal: rows.at(-1)?.ordinal ?? 0,
        observed_tokens: tokens,
        observer: this.deps.observer ? `${this.deps.observer.name}:${this.deps.observer.model}` : "extractive",
      }),
    ]);
    const firstLine =
      text
        .split("\n")
        .find((line) => line.trim() !== "")
        ?.replace(/^-\s*/, "")
        .trim() ?? "observed";
    await this.deps.compact?.(rows.at(-1)?.ordinal ?? 0, `Observed: ${firstLine.length > 120 ? `${firstLine.slice(0, 119)}…` : firstLine}`);
  }

  private async reflect(sessionId: string): Promise<void> {
    const observations = this.deps.store.recentOfType(sessionId, "observation", READ_LIMIT);
    const tokens = observations.reduce((sum, entry) => sum + entry.tokenCount, 0);
    if (tokens >= this.deps.settings.observationTokenThreshold) {
      // The extractive reflector cannot compress, only choose: with the memory's budget known it keeps one reflection,
      // chosen again each time from itself and the new observations, so the memory spans the whole conversation and fills
      // its budget rather than holding the newest stretches whole.
      const rolling = !this.deps.observer && this.deps.settings.memoryTokenBudget !== undefined;
      const earlier = rolling ? this.deps.store.recentOfType(sessionId, "reflection", READ_LIMIT) : [];
      const generation = 1 + Math.max(0, ...earlier.map((entry) => Number(entry.metadata.generation ?? 1)));
      if ((await this.condense(sessionId, [...earlier, ...observations], generation)) && earlier.length > 0) {
        this.deps.store.deleteDerived(
          sessionId,
          "reflection",
          earlier.map((entry) => entry.id),
        );
      }
      // The observations it condensed are notes, not messages: they go, the messages they came from stay.
      this.deps.store.deleteDerived(sessionId, "observation");
    }
    try {
      await this.consolidate(sessionId);
    } catch (error) {
      // A meta-reflection's failure is logged, never fatal: the notes it would have merged stay as they are.
      this.deps.report(`Observational memory could not consolidate its reflections: ${errorMessage(error)}`);
    }
  }

  /**
   * Once a generation holds enough reflections, they are condensed into one
   * of the next generation and go, as condensed observations do: a request
   * then carries each stretch of the conversation once, the older at the
   * higher generation, rather than both a stretch and its condensation. The
   * lowest generation goes first, and a generation filled by it is condensed
   * in turn.
   */
  private async consolidate(sessionId: string): Promise<void> {
    const generationOf = (entry: ContentEntry) => Number(entry.metadata.generation ?? 1);
    for (;;) {
      const reflections = this.deps.store.recentOfType(sessionId, "reflection", READ_LIMIT);
      const generations = [...new Set(reflections.map(generationOf))].sort((a, b) => a - b);
      const full = generations.find(
        (generation) =>
          reflections.filter((entry) => generationOf(entry) === generation).length >= OBSERVATION_DEFAULTS.reflectionConsolidationThreshold,
      );
      if (full === undefined) return;
      const condensed = reflections.filter((entry) => generationOf(entry) === full);
      if (!(await this.condense(sessionId, condensed, full + 1))) return;
      this.deps.store.deleteDerived(
        sessionId,
        "reflection",
        condensed.map((entry) => entry.id),
      );
    }
  }

  /** Writes the notes condensed into one reflection of `generation`; false when the reflector had nothing to say. */
  private async condense(sessionId: string, notes: readonly ContentEntry[], generation: number): Promise<boolean> {
    const texts = notes.map((note) => note.content);
    const text = this.deps.observer
      ? await this.ask(reflectorPrompt(texts, generation))
      : extractiveReflection(texts, extractiveReflectionTokens(this.deps.settings));
    if (!text.trim()) return false;
    const lastOrdinal = Math.max(...notes.map((note) => Number(note.metadata.last_ordinal ?? -1)));
    await this.deps.store.indexContents([
      this.entry(sessionId, "reflection", text, { generation, last_ordinal: lastOrdinal, condensed: notes.length }),
    ]);
    return true;
  }

  private entry(sessionId: string, contentType: "observation" | "reflection", content: string, metadata: Record<string, unknown>) {
    return { sessionId, agentId: "observer", agentType: "observer", contentType, content, turnNumber: 0, metadata } as const;
  }

  private async ask(prompt: string): Promise<string> {
    const observer = this.deps.observer as ModelProvider;
    const messages: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: prompt }] }];
    for await (const event of observer.stream({
      system: "You keep compressed notes of a coding session for the agent working in it.",
      messages,
      tools: [],
      maxTokens: NOTE_TOKENS * 2,
    })) {
      if (event.type === "complete") {
        return event.response.content
          .flatMap((block) => (block.type === "text" ? [block.text] : []))
          .join("\n")
          .trim();
      }
    }
    throw new Error("the observer's answer ended early");
  }
}

/**
 * What an extractive reflection may keep: with the memory's budget known, the
 * budget less room for a full set of observations (a reflection is written
 * once they reach their threshold); otherwise its cap.
 */
export function extractiveReflectionTokens(settings: ObservationSettings): number {
  const { memoryTokenBudget, observationTokenThreshold } = settings;
  if (memoryTokenBudget === undefined) return EXTRACTIVE_REFLECTION_TOKENS;
  return Math.max(MIN_EXTRACTIVE_REFLECTION_TOKENS, memoryTokenBudget - observationTokenThreshold);
}

async function withinTime(work: Promise<unknown> | undefined, timeoutMs: number): Promise<void> {
  if (!work) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, timeoutMs))))]);
  clearTimeout(timer);
}

/** What of a message the observer reads: what was said, and which tools were called (not their output, which the store keeps and would crowd out what was said). */
function observed(message: ChatMessage): ObservedMessage[] {
  const parts = message.content.flatMap((block) => {
    if (block.type === "text") return block.text.trim() && !block.text.startsWith("[AUTO-RETRIEVED") ? [block.text] : [];
    if (block.type === "tool_use") return [`(called ${block.name})`];
    return [];
  });
  return parts.length > 0 ? [{ role: message.role, text: parts.join("\n") }] : [];
}
