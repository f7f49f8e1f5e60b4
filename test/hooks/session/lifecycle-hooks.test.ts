import { afterEach, describe, expect, it } from "vitest";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { drain } from "../../helpers/drain.js";
import { messageRequests, reply } from "../../helpers/fake-anthropic-server.js";
import { type HookProject, hookEvents, openHookProject, recording, requestText } from "../../helpers/hook-project.js";

/**
 * The hooks of a session's life, each where it should fire: SessionStart at
 * the first prompt, SessionEnd when the session ends, PreEvict before content
 * leaves the window, Handoff once a fresh instance takes over, SubagentStop
 * when a sub-agent's answer ends.
 */
let hooked: HookProject | undefined;
afterEach(async () => {
  await hooked?.close();
  hooked = undefined;
});

const signal = () => new AbortController().signal;

/** One recording hook per event, each writing to `<event>.jsonl`. */
const recordingAll = (events: readonly string[]) => (dir: string) =>
  Object.fromEntries(
    events.map((event) => [event, [{ hooks: [{ type: "command" as const, command: recording(dir, `${event}.jsonl`) }] }]]),
  );

describe("SessionStart and SessionEnd", () => {
  it("SessionStart runs once, at the first prompt, its stdout context for the model; SessionEnd runs when the session ends, with why", async () => {
    hooked = await openHookProject(({ hooksDir }) => ({
      SessionStart: [
        { matcher: "startup", hooks: [{ type: "command", command: recording(hooksDir, "start.jsonl", "echo 'Branch: feature/parser'") }] },
      ],
      SessionEnd: [{ hooks: [{ type: "command", command: recording(hooksDir, "end.jsonl") }] }],
    }));
    const { server, services, env } = hooked;
    server.enqueue(reply().text("First."), reply().text("Second."));
    const session = openAgentSession({ services, env });
    // A session left before any prompt ends without its hooks: nothing was started.
    expect(await openAgentSession({ services, env }).end("exit")).toEqual([]);
    const first = await drain(session.run("Where are we?", signal()));
    await drain(session.run("And now?", signal()));
    expect(hooked.seen("start.jsonl")).toEqual([
      expect.objectContaining({ hook_event_name: "SessionStart", source: "startup", session_id: first.result.sessionId }),
    ]);
    const [firstRequest, secondRequest] = messageRequests(server).map((request) => requestText(request.body));
    expect(firstRequest).toContain("Branch: feature/parser");
    expect(secondRequest?.match(/Branch: feature\/parser/g)).toHaveLength(1);
    expect(hooked.seen("end.jsonl")).toEqual([]);

    const ended = await session.end("exit");
    session.close();
    expect(hooked.seen("end.jsonl")).toEqual([expect.objectContaining({ hook_event_name: "SessionEnd", reason: "exit" })]);
    expect(hookEvents(ended)).toEqual([expect.objectContaining({ hookEvent: "SessionEnd", outcome: "ok" })]);
  });
});

describe("PreEvict", () => {
  it("runs before content leaves the window, told why and which turns", async () => {
    hooked = await openHookProject(({ hooksDir }) => recordingAll(["PreEvict"])(hooksDir), {
      env: { SYLK_CONTEXT_PRESERVE_RECENT_TURNS: "0" },
    });
    const { server, services, env } = hooked;
    hooked.project.write("notes.txt", `${"a line of notes\n".repeat(200)}`);
    server.enqueue(reply().toolUse("read_file", { path: "notes.txt" }, "toolu_read"), reply().text("Read them."));
    const session = openAgentSession({ services, env });
    await drain(session.run("Read the notes.", signal()));
    expect(hooked.seen("PreEvict.jsonl")).toEqual([]);
    const references = await session.evictNow();
    session.close();
    expect(references.length).toBeGreaterThan(0);
    const [evicting] = hooked.seen("PreEvict.jsonl");
    expect(evicting).toMatchObject({ hook_event_name: "PreEvict", trigger: "manual" });
    expect(evicting?.turn_range).toEqual(references[0]?.turnRange);
    expect(evicting?.tokens).toBeGreaterThan(0);
  });
});

describe("Handoff", () => {
  it("runs once a fresh instance has taken over, before the next model call, told who handed to whom", async () => {
    hooked = await openHookProject(({ hooksDir }) => recordingAll(["Handoff"])(hooksDir));
    const { server, services, env } = hooked;
    server.enqueue(reply().text("Carrying on."));
    const session = openAgentSession({ services, env });
    session.requestHandoff();
    const { events } = await drain(session.run("Go on.", signal()));
    session.close();
    expect(hooked.seen("Handoff.jsonl")).toEqual([
      expect.objectContaining({
        hook_event_name: "Handoff",
        from_agent: "engineer-1",
        to_agent: "engineer-2",
        reason: "forced",
        handoff_index: 1,
      }),
    ]);
    const order = events.map((event) => event.type);
    expect(order.indexOf("handoff")).toBeLessThan(order.indexOf("hook"));
    expect(order.indexOf("hook")).toBeLessThan(order.indexOf("assistant_message"));
  });
});

describe("SubagentStop", () => {
  it("runs when a sub-agent's answer ends (Stop when the main agent's does), and its exit 2 keeps the sub-agent working", async () => {
    hooked = await openHookProject(({ hooksDir }) => ({
      Stop: [{ hooks: [{ type: "command", command: recording(hooksDir, "stop.jsonl") }] }],
      SubagentStop: [
        {
          hooks: [
            {
              type: "command",
              command: recording(
                hooksDir,
                "subagent-stop.jsonl",
                `grep -q '"stop_hook_active":true' '${hooksDir}/subagent-stop.jsonl' && exit 0; echo "cite the line numbers" >&2; exit 2`,
              ),
            },
          ],
        },
      ],
    }));
    const { server, services, env } = hooked;
    hooked.project.write("src/auth.ts", "export function verifyToken(token: string): boolean {\n  return token.length > 0;\n}\n");
    server.enqueue(
      reply().toolUse("delegate", { agent: "librarian", task: "Where are tokens verified?" }, "toolu_delegate"),
      reply().text("In src/auth.ts."),
      reply().text("In src/auth.ts:1-3."),
      reply().text("src/auth.ts:1-3."),
    );
    const session = openAgentSession({ services, env });
    const { result } = await drain(session.run("Where are tokens verified? Ask the librarian.", signal()));
    session.close();
    expect(result.response).toBe("src/auth.ts:1-3.");
    const stops = hooked.seen("subagent-stop.jsonl");
    expect(stops).toEqual([
      expect.objectContaining({
        hook_event_name: "SubagentStop",
        agent_type: "librarian",
        stop_hook_active: false,
        last_assistant_message: "In src/auth.ts.",
      }),
      expect.objectContaining({ hook_event_name: "SubagentStop", stop_hook_active: true }),
    ]);
    // The librarian's second call answered the hook's reason.
    expect(requestText(messageRequests(server)[2]?.body)).toContain("cite the line numbers");
    expect(hooked.seen("stop.jsonl")).toEqual([
      expect.objectContaining({ hook_event_name: "Stop", last_assistant_message: "src/auth.ts:1-3." }),
    ]);
  });
});
