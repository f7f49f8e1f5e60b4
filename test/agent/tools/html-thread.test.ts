import { describe, expect, it } from "vitest";
import { markdownOffThread } from "../../../src/agent/tools/html-thread.js";

describe("markdownOffThread", () => {
  it("converts on its own thread: title, headings, code; scripts and styles left out", async () => {
    const html =
      "<html><head><title>Docs</title><style>p{}</style></head><body><h2>Start</h2><p>Run <code>npm test</code>.</p><script>x()</script></body></html>";
    expect(await markdownOffThread(html, new AbortController().signal)).toBe("# Docs\n\n## Start\n\nRun `npm test`.");
  });

  it("a conversion that outlasts the signal is ended there, not waited for", async () => {
    const html = `<html><body>${"<p>A paragraph with <b>bold</b> and <a href='/x'>a link</a>.</p>".repeat(60_000)}</body></html>`;
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(new DOMException("too long", "TimeoutError")), 200);
    await expect(markdownOffThread(html, controller.signal)).rejects.toThrow("too long");
    // Converting all of it takes seconds; the answer came when the signal fired.
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
