#!/usr/bin/env node
// A scripted Anthropic Messages API as a process of its own, for scripts/tui-smoke.sh and the
// Markdown rendering benchmark: scripts/lib/fake-messages-server.mjs (the one fake server of the
// scripts, and the wire format the tests' fake speaks) with a plan decided from the request: a
// conversation whose last message carries a tool_result gets a final text answer; any other gets
// one edit_file tool call.
//
//   node scripts/fake-model-server.mjs --port-file <file> --path src/a.js --old "hello" --new "goodbye"
//   node scripts/fake-model-server.mjs --port-file <file> --text-only --answer-file <answer.md> --chunk 24 --event-delay-ms 4
// --text-only answers every request with the text (no tool call); --event-delay-ms spaces the SSE events out,
// so the answer streams over time as a real model's does.
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startFakeMessagesServer } from "./lib/fake-messages-server.mjs";

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
const textChunk = Number(values.chunk);
const eventDelayMs = Number(values["event-delay-ms"]);

function plan(body, number) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.at(-1);
  const answered = values["text-only"] || (Array.isArray(last?.content) && last.content.some((block) => block.type === "tool_result"));
  // Usage as a working session's: a prompt of some size that grows with the conversation.
  const usage = { input_tokens: 1_500 + 100 * messages.length, output_tokens: 40 };
  const blocks = answered
    ? [{ type: "text", text: answer }]
    : [
        { type: "text", text: "I'll make that edit." },
        {
          type: "tool_use",
          id: `toolu_fake_${number}`,
          name: "edit_file",
          input: { path: values.path, old_string: values.old, new_string: values.new },
        },
      ];
  return { blocks, textChunk, eventDelayMs, usage };
}

const server = await startFakeMessagesServer({ plan });
const port = new URL(server.baseUrl).port;
if (values["port-file"]) writeFileSync(values["port-file"], port);
process.stdout.write(`fake model server on ${server.baseUrl}\n`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void server.close().then(() => process.exit(0)));
