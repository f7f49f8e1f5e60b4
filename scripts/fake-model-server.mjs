#!/usr/bin/env node
// A scripted Anthropic Messages API for scripts/tui-smoke.sh and the TUI benchmark, in plain JS so it
// runs without a build. It streams (SSE) what the real SDK expects and decides from the request:
// a conversation whose last message carries a tool_result gets a final text answer; any other gets
// one edit_file tool call. Test suites use test/helpers/fake-anthropic-server.ts instead.
//
//   node scripts/fake-model-server.mjs --port-file <file> --path src/a.js --old "hello" --new "goodbye"
//   node scripts/fake-model-server.mjs --port-file <file> --text-only --answer-file <answer.md> --chunk 24 --event-delay-ms 4
// --text-only answers every request with the text (no tool call); --event-delay-ms spaces the SSE events out,
// so the answer streams over time as a real model's does.
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    "port-file": { type: "string" },
    path: { type: "string", default: "src/greet.js" },
    old: { type: "string", default: "hello" },
    new: { type: "string", default: "goodbye" },
    answer: { type: "string", default: "Done: the greeting now says goodbye." },
    "answer-file": { type: "string" },
    "text-only": { type: "boolean", default: false },
    chunk: { type: "string", default: "12" },
    "event-delay-ms": { type: "string", default: "0" },
  },
});
const answer = values["answer-file"] ? readFileSync(values["answer-file"], "utf8") : values.answer;
const chunkSize = Number(values.chunk);
const eventDelayMs = Number(values["event-delay-ms"]);

let calls = 0;

function events(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.at(-1);
  const answered = values["text-only"] || (Array.isArray(last?.content) && last.content.some((block) => block.type === "tool_result"));
  const usage = { input_tokens: 1_500 + 100 * messages.length, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: `msg_fake_${++calls}`, type: "message", role: "assistant", model: body?.model ?? "claude-fake", content: [], stop_reason: null, stop_sequence: null, usage };
  const out = [{ type: "message_start", message }];
  if (answered) {
    out.push(
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ...chunks(answer, chunkSize).map((text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 40 } },
    );
  } else {
    const input = JSON.stringify({ path: values.path, old_string: values.old, new_string: values.new });
    out.push(
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "I'll make that edit." } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: `toolu_fake_${calls}`, name: "edit_file", input: {} } },
      ...chunks(input, 16).map((partial_json) => ({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json } })),
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 40 } },
    );
  }
  out.push({ type: "message_stop" });
  return out;
}

function chunks(text, size) {
  const pieces = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces;
}

const server = createServer((request, response) => {
  let raw = "";
  request.on("data", (chunk) => (raw += chunk));
  request.on("end", () => {
    const route = (request.url ?? "").split("?")[0];
    let body;
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = {};
    }
    if (request.method === "POST" && route === "/v1/messages/count_tokens") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
      return;
    }
    if (request.method !== "POST" || route !== "/v1/messages") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no route ${route}` } }));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    void (async () => {
      for (const event of events(body)) {
        if (response.destroyed) return;
        response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
        if (eventDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, eventDelayMs));
      }
      response.end();
    })();
  });
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  if (values["port-file"]) writeFileSync(values["port-file"], String(port));
  process.stdout.write(`fake model server on http://127.0.0.1:${port}\n`);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
