import type { IndexSummary } from "../../src/indexer/project-indexer.js";

/**
 * Runs a generator (an agent's run, a pipeline, the indexer) to its end:
 * every value it yielded, in order, and what it returned. `onValue` sees each
 * value as it comes, before the next is asked for.
 */
export async function drain<Value, Result>(
  run: AsyncGenerator<Value, Result>,
  onValue?: (value: Value) => void,
): Promise<{ events: Value[]; result: Result }> {
  const events: Value[] = [];
  let step = await run.next();
  for (; !step.done; step = await run.next()) {
    events.push(step.value);
    onValue?.(step.value);
  }
  return { events, result: step.value };
}

/** Runs the project's indexer to completion: what it did. */
export async function drainIndex(services: {
  indexer: { run(signal?: AbortSignal): AsyncGenerator<unknown, IndexSummary> };
}): Promise<IndexSummary> {
  return (await drain(services.indexer.run())).result;
}
