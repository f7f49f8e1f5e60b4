import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.js";
import { streamToolOutput } from "../../src/agent/tool-output-stream.js";

async function collect<T>(generator: AsyncGenerator<AgentEvent, T>): Promise<{ events: AgentEvent[]; result: T }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const step = await generator.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a tool's output while it runs", () => {
  it("comes as tool_output events, in order and complete, then the result", async () => {
    const { events, result } = await collect(
      streamToolOutput("call-1", async (onOutput) => {
        onOutput("one\n");
        await sleep(150);
        onOutput("two\n");
        onOutput("three\n");
        await sleep(150);
        onOutput("four");
        return "finished";
      }),
    );
    expect(result).toBe("finished");
    expect(events.every((event) => event.type === "tool_output" && event.id === "call-1")).toBe(true);
    expect(events.map((event) => (event.type === "tool_output" ? event.text : "")).join("")).toBe("one\ntwo\nthree\nfour");
    // Chunks close together travel as one event.
    expect(events.length).toBeLessThanOrEqual(3);
  });

  it("is coalesced when a command prints fast: at most one event per interval", async () => {
    const { events } = await collect(
      streamToolOutput("fast", async (onOutput) => {
        for (let line = 0; line < 2_000; line++) {
          onOutput(`line ${line}\n`);
          if (line % 100 === 0) await sleep(5);
        }
      }),
    );
    expect(events.length).toBeLessThan(20);
    expect(
      events
        .map((event) => (event.type === "tool_output" ? event.text : ""))
        .join("")
        .split("\n"),
    ).toHaveLength(2_001);
  });

  it("passes a failure on after the output that came before it", async () => {
    const run = collect(
      streamToolOutput("broken", async (onOutput) => {
        onOutput("partial");
        await sleep(10);
        throw new Error("the database is gone");
      }),
    );
    await expect(run).rejects.toThrow("the database is gone");
  });
});
