/**
 * Turns a fetched page's HTML into markdown on a thread of its own: turndown
 * parses the whole document synchronously (a megabyte takes a second or
 * more), which on the main thread would freeze the screen and every other
 * call, and a page built to be slow could hold it for ever. The main thread
 * terminates this one when the fetch is cancelled or takes too long.
 */
import { parentPort, workerData } from "node:worker_threads";
import { htmlToMarkdown } from "../src/agent/tools/html-to-markdown.js";

export type HtmlWorkerMessage = { markdown: string } | { error: string };

const html = (workerData as { html: string }).html;
let message: HtmlWorkerMessage;
try {
  message = { markdown: htmlToMarkdown(html) };
} catch (error) {
  message = { error: error instanceof Error ? error.message : String(error) };
}
parentPort?.postMessage(message);
