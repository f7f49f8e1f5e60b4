import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { ModelProvider, ModelRequest, ModelStreamEvent } from "./model-types.js";
import { errorMessage } from "../errors.js";

/**
 * A decorator, not a feature of any provider: appends one JSON line per model
 * call (model, size of the request, outcome, usage, retries, duration) to a
 * log file. Enabled with `SYLK_MODEL_LOG=<path>`; message contents are not
 * logged (they are in the content store already).
 */
export class LoggingProvider implements ModelProvider {
  constructor(
    private readonly inner: ModelProvider,
    private readonly logPath: string,
  ) {
    mkdirSync(dirname(logPath), { recursive: true, mode: 0o700 });
  }

  get name(): string {
    return this.inner.name;
  }

  get model(): string {
    return this.inner.model;
  }

  get contextWindow(): number {
    return this.inner.contextWindow;
  }

  /** Forwarded as it is: a probe sends no conversation. */
  get probe(): ModelProvider["probe"] {
    return this.inner.probe?.bind(this.inner);
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelStreamEvent> {
    const started = Date.now();
    const retries: string[] = [];
    const base = { time: new Date(started).toISOString(), provider: this.name, model: this.model, messages: request.messages.length };
    try {
      for await (const event of this.inner.stream(request, signal)) {
        if (event.type === "retry") retries.push(event.reason);
        if (event.type === "complete") {
          this.write({
            ...base,
            outcome: "complete",
            stopReason: event.response.stopReason,
            usage: event.response.usage,
            retries,
            durationMs: Date.now() - started,
          });
        }
        yield event;
      }
    } catch (error) {
      this.write({ ...base, outcome: "error", error: errorMessage(error), retries, durationMs: Date.now() - started });
      throw error;
    }
  }

  private write(record: Record<string, unknown>): void {
    // Owner-only, like everything Sylk writes: the log names the models and the sizes of the user's work.
    appendFileSync(this.logPath, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }
}
