// The one fake Anthropic Messages API: a loopback server speaking what the real SDK expects (JSON
// or SSE, the SDK's own message shape). Plain JS, so scripts run it without a build; the tests'
// `test/helpers/fake-anthropic-server.ts` is a typed queue of replies on top of it.
//
// Each `POST /v1/messages` asks `plan(body, number)` what to do, so the caller decides per request:
//
//   { blocks: [{ type: "text", text } | { type: "tool_use", id, name, input }], ... }
//     answer with these blocks: streamed as SSE when the request asks for a stream, else one JSON
//     message. Optional:
//       stopReason, stopSequence   defaults: "tool_use" when a block is a call, else "end_turn"; a
//                                  stop_sequence stop names the request's first stop sequence
//       model                      default: the request's
//       usage: { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens }
//                                  defaults: input estimated from the request as count_tokens does,
//                                  output from the blocks' JSON over four, no cache
//       textChunk, jsonChunk       characters per text delta (8) and per input_json_delta (16)
//       delayMs                    the model's latency: nothing is sent before it
//       eventDelayMs               between two SSE events
//       cutAfter: n                n events (streamed) or half the JSON body, then the socket goes;
//                                  with `cutMidEvent` half of the next event's frame is sent first
//       malformedAt: n             the n-th event's data is JSON that stops before its closing braces
//       stallAt: n                 headers and the events before the n-th, then nothing (socket open)
//       afterEvent(index, total)   called after each event is written
//   { status: 429, errorType?, message?, headers?: { "retry-after": "1" } }   an error response
//   { hang: true }                                                             never answers
//   { dropConnection: true }                                                   the socket goes, no answer
//
// Like the real API, a request whose assistant tool_use blocks are not answered by tool_result
// blocks in the next message is refused with 400 (invalid_request_error) unless
// `refuseUnpairedToolUse: false`: a client that resumes a conversation cut between a call and its
// result must repair it first.
//
// `POST /v1/messages/count_tokens` answers `{ input_tokens }` as estimated below, unless
// `countTokens(body, headers)` returns a step: `{ status, errorType?, message?, headers? }` an error,
// `{ hang: true }` no answer, `{ delayMs }` a late one (what `sylk doctor`'s model check meets).
//
// `requests` holds every `POST /v1/messages`: its number, body, headers (lower-case names, as
// node gives them: where a key or token would travel) and the pairing problem, if any. `log` holds
// every request of any route, as `{ path, method, headers, body }` (body parsed, or the raw text
// when it is not JSON).
//
// `timings` holds, for every request (count_tokens and refused ones included), when the server
// had it (`receivedAt`: its body read) and when it had written all of its answer (`finishedAt`:
// `response.end()` returned; absent while it hangs), both `performance.now()`: what a call takes
// as the API sees it, measured in the same clock as the client's events.
import { createServer } from "node:http";

const ERROR_TYPES = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  408: "timeout_error",
  409: "conflict_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const errorTypeOf = (status) => ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");

export async function startFakeMessagesServer({ plan, countTokens, refuseUnpairedToolUse = true }) {
  const sockets = new Set();
  const requests = [];
  const log = [];
  const timings = [];
  const timers = new Map();
  let count = 0;
  let answers = 0;
  let closed = false;

  // Delays end early on close(); the handlers then see `gone()` and stop.
  const sleep = (ms) =>
    new Promise((done) => {
      if (!(ms > 0) || closed) return done();
      const timer = setTimeout(() => {
        timers.delete(timer);
        done();
      }, ms);
      timers.set(timer, done);
    });
  const gone = (response) => closed || response.destroyed || response.socket?.destroyed === true;
  const sendJson = (response, status, payload, headers = {}) => {
    const text = typeof payload === "string" ? payload : JSON.stringify(payload);
    response.writeHead(status, {
      "request-id": fakeId("req_", ++answers),
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
      ...headers,
    });
    response.end(text);
  };
  const sendError = (response, status, message, { errorType, headers } = {}) =>
    sendJson(response, status, { type: "error", error: { type: errorType ?? errorTypeOf(status), message } }, headers);

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
      handle(request, response, raw).catch((error) => {
        if (!response.headersSent && !gone(response))
          sendError(response, 500, `fake Anthropic server crashed: ${String(error)}`, { headers: { "x-should-retry": "false" } });
        else response.socket?.destroy();
      });
    });
  });
  // An idle connection stays open a minute, not node's 5 s: on a loaded machine a client's next request can
  // come later than that, on a socket the server is closing, and fail with ECONNRESET before it arrives.
  // close() destroys every socket, so nothing waits for the minute.
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => {
    // Many small SSE frames: without this Nagle delays each by ~40 ms.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(request, response, raw) {
    const path = request.url ?? "/";
    const route = path.split("?")[0];
    let body;
    let notJson = false;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        notJson = true;
      }
    }
    log.push({ path, method: request.method ?? "GET", headers: { ...request.headers }, body });
    if (request.method !== "POST" || (route !== "/v1/messages" && route !== "/v1/messages/count_tokens")) {
      return sendError(response, 404, `fake Anthropic server: no route for ${request.method} ${path}`);
    }
    if (notJson) return sendError(response, 400, "fake Anthropic server: request body is not JSON");
    if (route === "/v1/messages/count_tokens") return countTokensAnswer(response, countTokens?.(body, request.headers), body);
    const number = ++count;
    const invalid = refuseUnpairedToolUse ? conversationProblem(body?.messages) : undefined;
    requests.push({ number, body, headers: request.headers, invalid });
    if (invalid) return sendError(response, 400, invalid);
    const step = plan(body, number) ?? { blocks: [{ type: "text", text: "ok" }] };
    if (step.hang) return; // never answered; close() destroys the socket
    await sleep(step.delayMs);
    if (gone(response)) return;
    if (step.dropConnection) return void response.socket?.destroy();
    if (step.status) return sendError(response, step.status, step.message ?? `fake Anthropic server: scripted ${step.status}`, step);
    const message = messageOf(body, number, step);
    const io = { sleep, gone, requestId: () => fakeId("req_", ++answers) };
    if (body?.stream === true) return streamAnswer(response, message, step, io);
    const payload = JSON.stringify(
      envelope(
        message,
        message.blocks.map((block) => wireBlock(block, false)),
        true,
      ),
    );
    if (step.cutAfter !== undefined) {
      response.writeHead(200, {
        "request-id": io.requestId(),
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(payload)),
      });
      response.write(payload.slice(0, Math.floor(payload.length / 2)), () => response.socket?.destroy());
      return;
    }
    sendJson(response, 200, payload);
  }

  async function countTokensAnswer(response, step, body) {
    if (step?.hang) return;
    await sleep(step?.delayMs);
    if (gone(response)) return;
    if (step?.status) return sendError(response, step.status, step.message ?? `fake Anthropic server: scripted ${step.status}`, step);
    sendJson(response, 200, { input_tokens: estimateTokens(body) });
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    requests,
    log,
    timings,
    /** Requests received so far (all of them, refused ones included). */
    get count() {
      return count;
    },
    /** Stops listening and destroys every open socket, hanging and delayed answers included. */
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      for (const [timer, done] of timers) {
        clearTimeout(timer);
        done();
      }
      timers.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
    },
  };
}

/** The answer as SSE events, with the faults the step asks for; `io` is the server's clock, state and ids. */
async function streamAnswer(response, message, step, io) {
  const events = streamEvents(message, step);
  response.writeHead(200, { "request-id": io.requestId(), "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.flushHeaders();
  for (let index = 0; index < events.length; index++) {
    if (index > 0) await io.sleep(step.eventDelayMs);
    if (io.gone(response)) return;
    if (step.stallAt === index) return; // headers and earlier events sent; nothing more, socket kept open
    if (step.cutAfter === index) {
      // Half of the next frame (a stream cut mid-event), or nothing more; then the socket goes once what was written is out.
      const frame = step.cutMidEvent ? frameOf(events[index]) : "";
      response.write(frame.slice(0, Math.floor(frame.length / 2)), () => response.socket?.destroy());
      return;
    }
    // Malformed: a delta whose JSON stops before its closing braces, in a complete SSE frame.
    const frame =
      step.malformedAt === index
        ? 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"oops"\n\n'
        : frameOf(events[index]);
    response.write(frame);
    step.afterEvent?.(index, events.length);
  }
  if (step.cutAfter !== undefined && step.cutAfter >= events.length) return void response.write("", () => response.socket?.destroy());
  response.end();
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
      const answered = new Set(
        (Array.isArray(next?.content) ? next.content : [])
          .filter((block) => block.type === "tool_result")
          .map((block) => block.tool_use_id),
      );
      const missing = calls.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    if (message.role === "user") {
      const previous = messages[index - 1];
      const offered = new Set(
        previous?.role === "assistant" && Array.isArray(previous.content)
          ? previous.content.filter((block) => block.type === "tool_use").map((block) => block.id)
          : [],
      );
      const stray = content.filter((block) => block.type === "tool_result" && !offered.has(block.tool_use_id));
      if (stray.length > 0)
        return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray[0].tool_use_id}`;
    }
  }
  return undefined;
}

/** An id of a real one's shape (`msg_01` and 22 more characters), deterministic. */
function fakeId(prefix, number) {
  return `${prefix}01FAKE${String(number).padStart(18, "0")}`;
}

/** What the step answers, its defaults taken from the request. */
function messageOf(body, number, step) {
  const blocks = step.blocks ?? [];
  const stopReason = step.stopReason ?? (blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn");
  const requested = Array.isArray(body?.stop_sequences) && typeof body.stop_sequences[0] === "string" ? body.stop_sequences[0] : null;
  const usage = step.usage ?? {};
  return {
    id: fakeId("msg_", number),
    model: step.model ?? (typeof body?.model === "string" ? body.model : "claude-fake"),
    blocks,
    stopReason,
    stopSequence: stopReason === "stop_sequence" ? (step.stopSequence ?? requested ?? "\n\nHuman:") : null,
    usage: {
      input_tokens: usage.input_tokens ?? estimateTokens(body),
      output_tokens: usage.output_tokens ?? Math.max(1, Math.ceil(JSON.stringify(blocks).length / 4)),
      cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    },
  };
}

function fullUsage(usage, outputTokens) {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
    server_tool_use: null,
    service_tier: "standard",
    inference_geo: null,
    output_tokens_details: null,
    speed: null,
  };
}

/** A Message as the SDK's types have it (`container`, `diagnostics`, `stop_details` null; the full usage). */
function envelope(message, content, final) {
  return {
    id: message.id,
    type: "message",
    role: "assistant",
    model: message.model,
    content,
    stop_reason: final ? message.stopReason : null,
    stop_sequence: final ? message.stopSequence : null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: fullUsage(message.usage, final ? message.usage.output_tokens : 1),
  };
}

function wireBlock(block, empty) {
  if (block.type === "text") return { type: "text", text: empty ? "" : block.text };
  return { type: "tool_use", id: block.id, name: block.name, input: empty ? {} : block.input, caller: { type: "direct" } };
}

function streamEvents(message, { textChunk = 8, jsonChunk = 16 }) {
  const events = [{ type: "message_start", message: envelope(message, [], false) }, { type: "ping" }];
  message.blocks.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: wireBlock(block, true) });
    const deltas =
      block.type === "text"
        ? pieces(block.text, textChunk).map((text) => ({ type: "text_delta", text }))
        : pieces(JSON.stringify(block.input), jsonChunk).map((partial_json) => ({ type: "input_json_delta", partial_json }));
    for (const delta of deltas) events.push({ type: "content_block_delta", index, delta });
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: message.stopReason, stop_sequence: message.stopSequence, stop_details: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  events.push({ type: "message_stop" });
  return events;
}

function frameOf(event) {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** As count_tokens would: JSON of messages, system and tools over four. */
export function estimateTokens(body) {
  return Math.max(
    1,
    Math.ceil((JSON.stringify(body?.messages ?? []) + JSON.stringify(body?.system ?? "") + JSON.stringify(body?.tools ?? [])).length / 4),
  );
}

function pieces(text, size) {
  const out = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
}
