#!/usr/bin/env node
// Frame times while a long markdown answer streams: the real `node bin/sylk.js` runs in a
// 120x40 pseudo-terminal made by util-linux `script` (as bench-tui-launch.mjs does), against
// scripts/fake-model-server.mjs streaming a generated answer of --lines lines (headings, prose with
// emphasis and inline code, lists, tables and fenced code in several languages) in small deltas. Ink
// reports each frame's render time (SYLK_RENDER_LOG); the figures are those of the frames drawn
// while the answer streamed. Nothing is written to the repository.
//
//   npm run build && node scripts/bench-markdown-render.mjs --tree <dir> [--lines 600] [--chunk 24]
//                     [--event-delay-ms 4] [--home <SYLK_HOME to reuse>] [--sylk <bin/sylk.js to measure>]
//
// --tree is the project sylk opens (required; it is indexed first, so no consent question is asked).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { launchInTerminal, quit, requireScriptCommand, waitForText } from "./lib/pseudo-terminal.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    lines: { type: "string", default: "600" },
    chunk: { type: "string", default: "24" },
    "event-delay-ms": { type: "string", default: "4" },
    home: { type: "string" },
    sylk: { type: "string" },
  },
});
if (!values.tree) {
  console.error(
    "Usage: node scripts/bench-markdown-render.mjs --tree <dir> [--lines 600] [--chunk 24] [--event-delay-ms 4] [--sylk <bin/sylk.js>]",
  );
  process.exit(2);
}
requireScriptCommand("bench-markdown-render");
const REPO = fileURLToPath(new URL("..", import.meta.url));
const SYLK = values.sylk ? resolve(values.sylk) : join(REPO, "bin/sylk.js");
const END = "END OF THE LONG ANSWER";

/** A long answer of the kinds of blocks models write. */
function answer(lines) {
  const blocks = [];
  for (let section = 1; blocks.join("\n").split("\n").length < lines; section++) {
    blocks.push(
      `## Part ${section}: the parser and its **error recovery**`,
      "",
      `The \`parseBinding\` function in \`src/parser/binding.ts\` reads a *pattern* and returns a node; when it fails it records a diagnostic and skips to the next token (see [the docs](https://example.com/parser/${section})).`,
      "",
      "- first, the lexer produces tokens",
      "- then the parser builds the tree",
      "  - recovering where it can",
      "- finally the formatter prints it",
      "",
      "```ts",
      `export function parseBinding${section}(tokens: Token[], at: number): Node {`,
      '  const node = { kind: "binding", start: at };',
      "  // skip trivia before the name",
      '  while (tokens[at]?.kind === "whitespace") at++;',
      "  return { ...node, end: at };",
      "}",
      "```",
      "",
      "| step | input | output |",
      "| --- | --- | ---: |",
      `| lex | source | ${section * 10} tokens |`,
      `| parse | tokens | ${section} nodes |`,
      "",
      "```rust",
      `fn recover_${section}(p: &mut Parser) -> Option<CompletedMarker> {`,
      "    p.bump_any();",
      "    None",
      "}",
      "```",
      "",
    );
  }
  return `${blocks.join("\n")}\n${END}\n`;
}

const percentile = (samples, q) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? NaN;

const work = mkdtempSync(join(tmpdir(), "sylk-bench-md-"));
const home = values.home ? resolve(values.home) : join(work, "home");
const answerFile = join(work, "answer.md");
const portFile = join(work, "port");
const renderLog = join(work, "render.log");
writeFileSync(answerFile, answer(Number(values.lines)));
const env = { ...process.env, SYLK_HOME: home, ANTHROPIC_API_KEY: "sk-ant-bench", TERM: "xterm-256color" };
delete env.CI;
delete env.NO_COLOR;

try {
  const index = spawnSync(process.execPath, [SYLK, "index", "--yes", values.tree], { env, encoding: "utf8" });
  if (index.status !== 0) throw new Error(`sylk index failed:\n${index.stderr}`);
  const server = spawn(
    process.execPath,
    [
      join(REPO, "scripts/fake-model-server.mjs"),
      "--port-file",
      portFile,
      "--text-only",
      "--answer-file",
      answerFile,
      "--chunk",
      values.chunk,
      "--event-delay-ms",
      values["event-delay-ms"],
    ],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  while (!existsSync(portFile) || readFileSync(portFile, "utf8") === "") await new Promise((resolve) => setTimeout(resolve, 20));
  const baseUrl = `http://127.0.0.1:${readFileSync(portFile, "utf8")}`;

  const session = launchInTerminal(SYLK, values.tree, { ...env, ANTHROPIC_BASE_URL: baseUrl, SYLK_RENDER_LOG: renderLog });
  await waitForText(session, "Ask anything");
  const mark = session.output.length;
  const sent = performance.now();
  const sentAt = Date.now();
  session.child.stdin.write("explain the parser\r");
  const ended = await waitForText(session, END, mark, 180_000);
  const endedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 300));
  await quit(session);
  server.kill();

  // The frames drawn between sending the prompt and the end of the answer on screen.
  const frames = readFileSync(renderLog, "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(" ").map(Number));
  const streamed = frames.filter(([at]) => at >= sentAt && at <= endedAt).map(([, renderTime]) => renderTime);
  const streamingMs = ended - sent;
  console.log(
    `\nMarkdown answer of ${values.lines} lines streamed in ${(streamingMs / 1000).toFixed(1)} s (${values.chunk} characters a delta, ${values["event-delay-ms"]} ms apart), ${SYLK}`,
  );
  console.log(
    `frames while streaming: ${streamed.length}; render time p50 ${percentile(streamed, 0.5).toFixed(2)} ms, p95 ${percentile(streamed, 0.95).toFixed(2)} ms, max ${Math.max(...streamed).toFixed(2)} ms (target p95 < 16 ms)`,
  );
} finally {
  if (!values.home) rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
