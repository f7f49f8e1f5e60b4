import { setImmediate as nextTurnOfEventLoop } from "node:timers/promises";
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
 * them; the messages they come from stay stored as they were. Each note is
 * written in one transaction once it is whole (a reflection with the
 * deletion of the observations it condensed), so a pass stopped anywhere
 * leaves the notes before it or after it, never half of one. A failed
 * model call is reported and tried again at the next signal.
 */
export class ObservationBuffer {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** Stops the observer's model call under way when the session closes without waiting for it. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: ObservationBufferDeps) {}

  /** Messages were recorded (a model call's, or a run's end): observe when there is enough, without making the run wait. */
  signal(): void {
    if (this.closed) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    // The pass starts on a later turn of the event loop, never inside the run step that signalled it.
    this.running = nextTurnOfEventLoop()
      .then(() => this.pass())
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.closed) {
          this.again = false;
          this.signal();
        }
      });
  }

  /**
   * Stops taking signals and waits for the pass under way (graceful
   * shutdown), at most `timeoutMs`; then cancels it: its model call is
   * aborted and it writes nothing more, so nothing runs against a store
   * about to close.
   */
  async close(timeoutMs = SHUTDOWN_WAIT_MS): Promise<void> {
    this.closed = true;
    await withinTime(this.running, timeoutMs);
    this.stopping.abort();
    await this.running?.catch(() => undefined);
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
      if (this.stopping.signal.aborted) return;
      this.deps.report(`Observational memory: ${errorMessage(error)}; it tries again after the next turn.`);
    }
  }

  private async observe(sessionId: string): Promise<void> {
    const observations = this.deps.store.recentOfType(sessionId, "observation", READ_LIMIT);
    const reflections = this.deps.store.recentOfType(sessionId, "reflection", READ_LIMIT);
    const observedThrough = Math.max(-1, ...[...observations, ...reflections].map((entry) => Number(entry.metadata.last_ordinal ?? -1)));
    const rows = this.deps.rows().filter((row) => row.ordinal > observedThrough);
    // The trigger counts the messages as the window holds them, tool results too: a run that reads files fills the window with them.
    const tokens = rows.reduce((sum, row) => sum + messageTokens(row.message), 0);
    if (tokens < this.deps.settings.messageTokenThreshold || rows.length === 0) return;
    const messages = rows.flatMap((row) => observed(row.message));
    const text = this.deps.observer ? await this.ask(observerPrompt(messages)) : extractiveObservation(messages, NOTE_TOKENS);
    // Choosing the sentences and writing them are separate turns of the event loop: the screen and the run go on between them.
    await nextTurnOfEventLoop();
    if (!text.trim() || this.stopping.signal.aborted) return;
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
    if (this.stopping.signal.aborted) return;
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
      // The observations it condensed (and the reflection it replaces) are notes, not messages: they go with the
      // reflection's write, the messages they came from stay.
      await this.condense(sessionId, [...earlier, ...observations], generation, () => {
        if (earlier.length > 0) {
          this.deps.store.deleteDerived(
            sessionId,
            "reflection",
            earlier.map((entry) => entry.id),
          );
        }
        this.deps.store.deleteDerived(sessionId, "observation");
      });
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
      const written = await this.condense(sessionId, condensed, full + 1, () =>
        this.deps.store.deleteDerived(
          sessionId,
          "reflection",
          condensed.map((entry) => entry.id),
        ),
      );
      if (!written) return;
    }
  }

  /**
   * Writes the reflection of `notes`, and in the same transaction what
   * `alongside` does (the condensed notes' deletion); false when the
   * reflector had nothing to say or the buffer is stopping (nothing written).
   */
  private async condense(
    sessionId: string,
    notes: readonly ContentEntry[],
    generation: number,
    alongside: () => void = () => undefined,
  ): Promise<boolean> {
    const texts = notes.map((note) => note.content);
    const text = this.deps.observer
      ? await this.ask(reflectorPrompt(texts, generation))
      : extractiveReflection(texts, extractiveReflectionTokens(this.deps.settings));
    if (!text.trim() || this.stopping.signal.aborted) return false;
    const lastOrdinal = Math.max(...notes.map((note) => Number(note.metadata.last_ordinal ?? -1)));
    await this.deps.store.indexContents(
      [this.entry(sessionId, "reflection", text, { generation, last_ordinal: lastOrdinal, condensed: notes.length })],
      alongside,
    );
    return true;
  }

  private entry(sessionId: string, contentType: "observation" | "reflection", content: string, metadata: Record<string, unknown>) {
    return { sessionId, agentId: "observer", agentType: "observer", contentType, content, turnNumber: 0, metadata } as const;
  }

  private async ask(prompt: string): Promise<string> {
    const observer = this.deps.observer as ModelProvider;
    const messages: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: prompt }] }];
    const request = {
      system: "You keep compressed notes of a coding session for the agent working in it.",
      messages,
      tools: [],
      maxTokens: NOTE_TOKENS * 2,
    };
    for await (const event of observer.stream(request, this.stopping.signal)) {
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

/** A message's tokens as the window holds it: its text, its tool calls' input and its tool results. */
function messageTokens(message: ChatMessage): number {
  return message.content.reduce((sum, block) => {
    if (block.type === "text") return sum + estimateTokens(block.text);
    if (block.type === "tool_use") return sum + estimateTokens(JSON.stringify(block.input));
    return sum + estimateTokens(block.content);
  }, 0);
}

/** The most of a tool call's input the observer reads: enough for a path, a pattern or a short command. */
const CALL_INPUT_CHARS = 160;

/**
 * What of a message the observer reads: what was said, and which tools were
 * called on what (not their output, which the store keeps and would crowd
 * out what was said).
 */
function observed(message: ChatMessage): ObservedMessage[] {
  const parts = message.content.flatMap((block) => {
    if (block.type === "text") return block.text.trim() && !block.text.startsWith("[AUTO-RETRIEVED") ? [block.text] : [];
    if (block.type === "tool_use") return [`(called ${block.name} ${callInput(block.input)})`];
    return [];
  });
  return parts.length > 0 ? [{ role: message.role, text: parts.join("\n") }] : [];
}

function callInput(input: unknown): string {
  const text = JSON.stringify(input) ?? "";
  return text.length > CALL_INPUT_CHARS ? `${text.slice(0, CALL_INPUT_CHARS - 1)}…` : text;
}
