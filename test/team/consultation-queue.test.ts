import { describe, expect, it } from "vitest";
import { ConsultationCancelledError, ConsultationQueue, type ConsultPriority } from "../../src/team/consultation-queue.js";

/** A task that runs until `finish` (or `fail`) is called, recording when it started. */
function gate(log: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const task = () => {
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      finish = (value) => resolve(value);
      fail = reject;
    });
  };
  return { task, finish: (value = name) => finish(value), fail: (error: Error) => fail(error) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("ConsultationQueue", () => {
  it("runs one consultation at a time and the waiting ones by priority under contention", async () => {
    const queue = new ConsultationQueue();
    const log: string[] = [];
    const first = gate(log, "first");
    const running = queue.run("low", undefined, first.task);
    const order: ConsultPriority[] = ["low", "normal", "critical", "high", "normal"];
    const waiting = order.map((priority, index) =>
      queue.run(priority, undefined, async () => {
        log.push(`start ${priority}-${index}`);
        return `${priority}-${index}`;
      }),
    );
    expect(queue.busy).toBe(true);
    expect(queue.pending).toBe(5);
    expect(log).toEqual(["start first"]);
    first.finish();
    await expect(running).resolves.toBe("first");
    await Promise.all(waiting);
    expect(log).toEqual(["start first", "start critical-2", "start high-3", "start normal-1", "start normal-4", "start low-0"]);
    expect(queue.busy).toBe(false);
    expect(queue.pending).toBe(0);
  });

  it("keeps arrival order within a level", async () => {
    const queue = new ConsultationQueue();
    const log: string[] = [];
    const first = gate(log, "first");
    void queue.run("normal", undefined, first.task);
    const all = ["a", "b", "c", "d"].map((name) => queue.run("high", undefined, async () => void log.push(name)));
    first.finish();
    await Promise.all(all);
    expect(log).toEqual(["start first", "a", "b", "c", "d"]);
  });

  it("never preempts a running consultation, even for a critical one", async () => {
    const queue = new ConsultationQueue();
    const log: string[] = [];
    const slow = gate(log, "slow");
    const running = queue.run("low", undefined, slow.task);
    const critical = queue.run("critical", undefined, async () => void log.push("critical"));
    await settle();
    expect(log).toEqual(["start slow"]);
    slow.finish();
    await running;
    await critical;
    expect(log).toEqual(["start slow", "critical"]);
  });

  it("cancels a waiting consultation when its signal aborts, and the others still run", async () => {
    const queue = new ConsultationQueue();
    const log: string[] = [];
    const first = gate(log, "first");
    void queue.run("normal", undefined, first.task);
    const controller = new AbortController();
    const cancelled = queue.run("critical", controller.signal, async () => void log.push("never"));
    const after = queue.run("low", undefined, async () => void log.push("after"));
    controller.abort();
    await expect(cancelled).rejects.toBeInstanceOf(ConsultationCancelledError);
    await expect(cancelled).rejects.toThrow(/cancelled/);
    expect(queue.pending).toBe(1);
    first.finish();
    await after;
    expect(log).toEqual(["start first", "after"]);
  });

  it("refuses at once a consultation whose signal is already aborted", async () => {
    const queue = new ConsultationQueue();
    let ran = false;
    await expect(
      queue.run("normal", AbortSignal.abort(), async () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(ConsultationCancelledError);
    expect(ran).toBe(false);
  });

  it("does not cancel the running consultation when its signal aborts: the task watches it", async () => {
    const queue = new ConsultationQueue();
    const log: string[] = [];
    const controller = new AbortController();
    const running = gate(log, "running");
    const result = queue.run("normal", controller.signal, running.task);
    controller.abort();
    running.finish("done anyway");
    await expect(result).resolves.toBe("done anyway");
  });

  it("goes on after a failing task, whether it rejects or throws", async () => {
    const queue = new ConsultationQueue();
    const log: string[] = [];
    const failing = gate(log, "failing");
    const failed = queue.run("high", undefined, failing.task);
    const throwing = queue.run("high", undefined, () => {
      throw new Error("thrown");
    });
    const next = queue.run("low", undefined, async () => "next ran");
    failing.fail(new Error("rejected"));
    await expect(failed).rejects.toThrow("rejected");
    await expect(throwing).rejects.toThrow("thrown");
    await expect(next).resolves.toBe("next ran");
    expect(queue.busy).toBe(false);
  });

  it("cancelWaiting rejects every waiting consultation and lets the running one finish", async () => {
    const queue = new ConsultationQueue();
    const log: string[] = [];
    const first = gate(log, "first");
    const running = queue.run("normal", undefined, first.task);
    const waiting = [queue.run("high", undefined, async () => 1), queue.run("low", undefined, async () => 2)];
    expect(queue.cancelWaiting("the session closed")).toBe(2);
    for (const promise of waiting) await expect(promise).rejects.toThrow("the session closed");
    first.finish();
    await expect(running).resolves.toBe("first");
  });
});
