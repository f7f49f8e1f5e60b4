// A loopback Anthropic Messages API for scripts (plain JS, no build), speaking SSE the way the
// real SDK expects (see test/helpers/fake-anthropic-server.ts for the wire format). Each
// `POST /v1/messages` asks `plan(body, number)` what to do, so a script decides per request:
//
//   { blocks: [{ type: "text", text } | { type: "tool_use", id, name, input }], delayMs?, eventDelayMs? }
//     stream these blocks (after `delayMs`, the model's latency: nothing is sent before it); `cutAfter: n` drops the socket after n events, `malformedAt: n`
//     sends broken JSON as the n-th event's data, `stallAt: n` stops sending (socket open);
//     `afterEvent(index, total)` is called after each event is written
//   { status: 429, headers?: { "retry-after": "1" }, message? }     an error response
//   { hang: true }                                                   never answers
//
// Like the real API, a request whose assistant tool_use blocks are not answered by tool_result
// blocks in the next message is refused with 400 (invalid_request_error): a client that resumes
// a conversation cut between a call and its result must repair it first.
//
// `requests` holds every `POST /v1/messages`: its number, body, headers (lower-case names, as
// node gives them: where a key or token would travel) and the pairing problem, if any.
//
// `timings` holds, for every request (count_tokens and refused ones included), when the server
// had it (`receivedAt`: its body read) and when it had written all of its answer (`finishedAt`:
// `response.end()` returned; absent while it hangs), both `performance.now()`: what a call takes
// as the API sees it, measured in the same clock as the client's events.
import { createServer } from "node:http";

const ERROR_TYPES = { 400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error" };

export async function startFakeMessagesServer({ plan }) {
  const sockets = new Set();
  const requests = [];
  const timings = [];
  let count = 0;

  const server = createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => (raw += chunk));
    request.on("end", () => {
      const timing = { route: (request.url ?? "").split("?")[0], receivedAt: performance.now() };
      timings.push(timing);
      const end = response.end.bind(response);
      response.end = (...args) => {
        const result = end(...args);
        timing.finishedAt = performance.now();
        return result;
      };
      handle(request, response, raw).catch(() => response.socket?.destroy());
    });
  });
  server.on("connection", (socket) => {
    // Many small SSE frames: without this Nagle delays each by ~40 ms.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(request, response, raw) {
    const route = (request.url ?? "").split("?")[0];
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return sendError(response, 400, "request body is not JSON");
    }
    if (route === "/v1/messages/count_tokens") {
      return sendJson(response, 200, { input_tokens: estimateTokens(body) });
    }
    if (request.method !== "POST" || route !== "/v1/messages") return sendError(response, 404, `no route ${route}`);
    const number = ++count;
    const invalid = conversationProblem(body.messages);
    requests.push({ number, body, headers: request.headers, invalid });
    if (invalid) return sendError(response, 400, invalid);
    const step = plan(body, number) ?? { blocks: [{ type: "text", text: "ok" }] };
    if (step.hang) return;
    if (step.delayMs) await sleep(step.delayMs);
    if (step.status) return sendError(response, step.status, step.message ?? `scripted ${step.status}`, step.headers);
    await stream(response, body, number, step);
  }

  async function stream(response, body, number, step) {
    const events = streamEvents(body, number, step.blocks);
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_fake_${number}` });
    response.flushHeaders();
    for (let index = 0; index < events.length; index++) {
      if (index > 0 && step.eventDelayMs) await sleep(step.eventDelayMs);
      if (response.destroyed) return;
      if (step.stallAt === index) return; // headers and earlier events sent; nothing more, socket kept open
      if (step.cutAfter === index) {
        // Half of the next frame, then the socket goes: a stream cut mid-event.
        const frame = frameOf(events[index]);
        response.write(frame.slice(0, Math.floor(frame.length / 2)), () => response.socket?.destroy());
        return;
      }
      // Malformed: a delta whose JSON stops before its closing braces, in a complete SSE frame.
      const frame = step.malformedAt === index ? 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"oops"\n\n' : frameOf(events[index]);
      response.write(frame);
      step.afterEvent?.(index, events.length);
    }
    response.end();
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    requests,
    timings,
    /** Requests received so far (all of them, refused ones included). */
    get count() {
      return count;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** The real API's pairing rule: each tool_use is answered by a tool_result in the next message, and only then. */
export function conversationProblem(messages) {
  if (!Array.isArray(messages) || messages.length === 0) return "messages: at least one message is required";
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    const content = Array.isArray(message.content) ? message.content : [{ type: "text", text: String(message.content) }];
    if (content.length === 0) return `messages.${index}: all messages must have non-empty content`;
    const calls = message.role === "assistant" ? content.filter((block) => block.type === "tool_use").map((block) => block.id) : [];
    if (calls.length > 0) {
      const next = messages[index + 1];
      const answered = new Set((Array.isArray(next?.content) ? next.content : []).filter((block) => block.type === "tool_result").map((block) => block.tool_use_id));
      const missing = calls.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    if (message.role === "user") {
      const previous = messages[index - 1];
      const offered = new Set(previous?.role === "assistant" && Array.isArray(previous.content) ? previous.content.filter((block) => block.type === "tool_use").map((block) => block.id) : []);
      const stray = content.filter((block) => block.type === "tool_result" && !offered.has(block.tool_use_id));
      if (stray.length > 0) return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray[0].tool_use_id}`;
    }
  }
  return undefined;
}

function streamEvents(body, number, blocks) {
  const usage = { input_tokens: estimateTokens(body), output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: `msg_fake_${number}`, type: "message", role: "assistant", model: body.model ?? "claude-fake", content: [], stop_reason: null, stop_sequence: null, usage };
  const events = [{ type: "message_start", message }, { type: "ping" }];
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const text of pieces(block.text, 8)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    } else {
      events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      for (const partial_json of pieces(JSON.stringify(block.input), 16)) events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
    }
    events.push({ type: "content_block_stop", index });
  });
  const output = Math.max(1, Math.ceil(JSON.stringify(blocks).length / 4));
  const stop = blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  events.push({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output } });
  events.push({ type: "message_stop" });
  return events;
}

function frameOf(event) {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function sendJson(response, status, payload, headers = {}) {
  const text = JSON.stringify(payload);
  response.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  response.end(text);
}

function sendError(response, status, message, headers = {}) {
  sendJson(response, status, { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } }, headers);
}

/** As count_tokens would: JSON of messages, system and tools over four. */
function estimateTokens(body) {
  return Math.max(1, Math.ceil((JSON.stringify(body.messages ?? []) + JSON.stringify(body.system ?? "") + JSON.stringify(body.tools ?? [])).length / 4));
}

function pieces(text, size) {
  const out = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out.length > 0 ? out : [""];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
