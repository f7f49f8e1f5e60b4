import { Worker } from "node:worker_threads";
import type { HtmlWorkerMessage } from "../../../workers/html-worker.js";
import { workerEntryPath } from "../../worker-entry.js";

/**
 * The page's HTML as markdown, converted on a thread of its own
 * (`workers/html-worker`), which ends with the answer, or is terminated
 * when `signal` aborts (the fetch was cancelled, or ran out of time).
 */
export function markdownOffThread(html: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const worker = new Worker(workerEntryPath("html-worker.js"), { workerData: { html } });
    const stop = () => {
      void worker.terminate();
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
    const settle = () => signal.removeEventListener("abort", stop);
    worker.once("message", (message: HtmlWorkerMessage) => {
      settle();
      void worker.terminate();
      if ("markdown" in message) resolve(message.markdown);
      else reject(new Error(`the page's HTML could not be read: ${message.error}`));
    });
    worker.once("error", (error) => {
      settle();
      reject(error);
    });
  });
}
