import { describe, expect, it } from "vitest";
import { WatchedChanges } from "../../src/indexer/watched-changes.js";

const live = () => new AbortController().signal;

describe("WatchedChanges", () => {
  it("vouches for nothing until told the watch holds, and asks the watcher for its pending events at each question", async () => {
    const changes = new WatchedChanges();
    changes.record(["src/a.ts"]);
    expect(await changes.changes(live())).toBeUndefined();
    let flushes = 0;
    changes.vouch(async () => {
      flushes++;
      // What the watcher reports while flushing is in the answer.
      changes.record(["src/late.ts"]);
    });
    expect([...((await changes.changes(live())) ?? [])].sort()).toEqual(["src/a.ts", "src/late.ts"]);
    expect(flushes).toBe(1);
  });

  it("settles what a pass indexed, except paths reported again after the pass began", () => {
    const changes = new WatchedChanges();
    changes.vouch(async () => undefined);
    changes.record(["a.ts", "b.ts", "c.ts"]);
    const mark = changes.mark();
    changes.record(["b.ts", "d.ts"]);
    changes.settle(mark, ["a.ts", "b.ts", "d.ts"]);
    return expect(changes.changes(live()).then((set) => [...(set ?? [])].sort())).resolves.toEqual(["b.ts", "c.ts", "d.ts"]);
  });

  it("a pass over the whole project settles everything reported before it", async () => {
    const changes = new WatchedChanges();
    changes.vouch(async () => undefined);
    changes.record(["a.ts", "b.ts"]);
    const mark = changes.mark();
    changes.record(["c.ts"]);
    changes.settle(mark);
    expect([...((await changes.changes(live())) ?? [])]).toEqual(["c.ts"]);
  });

  it("stops vouching when an ignore file changes, when the watcher cannot flush, and when revoked", async () => {
    const changes = new WatchedChanges();
    changes.vouch(async () => undefined);
    changes.record(["packages/x/.gitignore"]);
    expect(await changes.changes(live())).toBeUndefined();
    changes.vouch(() => Promise.reject(new Error("thread gone")));
    expect(await changes.changes(live())).toBeUndefined();
    expect(changes.vouching).toBe(false);
    changes.vouch(async () => undefined);
    changes.revoke();
    expect(await changes.changes(live())).toBeUndefined();
  });

  it("answers at once when its signal ends a flush that does not come", async () => {
    const changes = new WatchedChanges();
    changes.vouch(() => new Promise(() => undefined));
    const controller = new AbortController();
    const asked = changes.changes(controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(await asked).toBeUndefined();
    // The watcher is still trusted: a stopped search says nothing about it.
    expect(changes.vouching).toBe(true);
  });
});
