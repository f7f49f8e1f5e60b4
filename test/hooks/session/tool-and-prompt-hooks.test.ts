import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { drain } from "../../helpers/drain.js";
import { messageRequests, reply } from "../../helpers/fake-anthropic-server.js";
import { type HookProject, hookEvents, openHookProject, recording, requestText } from "../../helpers/hook-project.js";
import { isRunning } from "../../helpers/process-state.js";

/**
 * The user's hooks around tool calls and prompts, end to end: a real session
 * against the fake Messages API, hooks run as real processes.
 */
let hooked: HookProject | undefined;
afterEach(async () => {
  await hooked?.close();
  hooked = undefined;
});

async function runPrompt(prompt: string, options: { permissionMode?: "bypass" } = {}) {
  if (!hooked) throw new Error("no project");
  const session = openAgentSession({ services: hooked.services, env: hooked.env, ...options });
  const ran = await drain(session.run(prompt, new AbortController().signal));
  session.close();
  return ran;
}

describe("PreToolUse", () => {
  it("exit 2 blocks a command, which never runs, and its stderr reaches the model in the next request", async () => {
    hooked = await openHookProject(({ script, hooksDir }) => ({
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            {
              type: "command",
              command: script(
                "no-forbidden.sh",
                `input=$(cat)\nprintf '%s\\n' "$input" >> '${join(hooksDir, "pre.jsonl")}'\ncase "$input" in *forbidden*) echo "forbidden files are not created here" >&2; exit 2;; esac\nexit 0`,
              ),
            },
          ],
        },
      ],
    }));
    const { server, project } = hooked;
    server.enqueue(
      reply().toolUse("run_command", { command: "touch forbidden-marker" }, "toolu_blocked"),
      reply().toolUse("run_command", { command: "touch allowed-marker" }, "toolu_allowed"),
      reply().text("One of the two was refused."),
    );
    const { events, result } = await runPrompt("Create the two markers.", { permissionMode: "bypass" });
    expect(result.stopReason).toBe("end_turn");
    expect(existsSync(join(project.root, "forbidden-marker"))).toBe(false);
    expect(existsSync(join(project.root, "allowed-marker"))).toBe(true);

    const [, second] = messageRequests(server).map((request) => request.body);
    const blockedResult = JSON.stringify(second.messages.at(-1));
    expect(blockedResult).toContain("A PreToolUse hook blocked this call: forbidden files are not created here");
    expect(blockedResult).toContain('"is_error":true');

    // Its input, on stdin: the event's fields as Claude Code names them.
    const [first] = hooked.seen("pre.jsonl");
    expect(first).toMatchObject({
      session_id: result.sessionId,
      cwd: project.root,
      hook_event_name: "PreToolUse",
      tool_name: "run_command",
      tool_input: { command: "touch forbidden-marker" },
      tool_use_id: "toolu_blocked",
      permission_mode: "bypass",
    });
    // Each run is an event, before the result it shaped; a quiet success is one too (stream-json shows it).
    const hooks = hookEvents(events);
    expect(hooks.map((event) => event.outcome)).toEqual(["blocked", "ok"]);
    expect(hooks[0]).toMatchObject({ hookEvent: "PreToolUse", toolName: "run_command", exitCode: 2 });
    const order = events.map((event) => (event.type === "tool_result" ? `result:${event.id}` : event.type));
    expect(order.indexOf("hook")).toBeLessThan(order.indexOf("result:toolu_blocked"));
  });

  it("a matcher that does not match the tool leaves the call alone, and a hook that hangs is ended at its timeout with its children", async () => {
    hooked = await openHookProject(({ script, hooksDir }) => ({
      PreToolUse: [
        { matcher: "write_file|Edit", hooks: [{ type: "command", command: "echo never >&2; exit 2" }] },
        {
          matcher: "read_file",
          hooks: [
            {
              type: "command",
              command: script("hang.sh", `sleep 300 &\necho $! > '${join(hooksDir, "child.pid")}'\nsleep 300`),
              timeout: 1,
            },
          ],
        },
      ],
    }));
    const { server, hooksDir } = hooked;
    hooked.project.write("notes.txt", "the notes\n");
    server.enqueue(reply().toolUse("read_file", { path: "notes.txt" }, "toolu_read"), reply().text("Read."));
    const started = performance.now();
    const { events, result } = await runPrompt("Read the notes.");
    expect(result.stopReason).toBe("end_turn");
    expect(performance.now() - started).toBeLessThan(15_000);
    const [hook] = hookEvents(events);
    expect(hook).toMatchObject({ hookEvent: "PreToolUse", outcome: "error", exitCode: null });
    expect(hook?.message).toMatch(/ended at its timeout of 1 s/);
    // A failed hook stops nothing: the file was read.
    expect(requestText(messageRequests(server)[1]?.body)).toContain("the notes");
    // Its background child went with its process group.
    expect(isRunning(Number(readFileSync(join(hooksDir, "child.pid"), "utf8")))).toBe(false);
  });
});

describe("a hook's report", () => {
  it("masks a token written into the hook's command, as any output is", async () => {
    const token = `ghp_${"A1b2C3d4E5".repeat(4).slice(0, 36)}`;
    hooked = await openHookProject(() => ({ UserPromptSubmit: [{ hooks: [{ type: "command", command: `: ${token}; exit 1` }] }] }));
    hooked.server.enqueue(reply().text("Hi."));
    const { events } = await runPrompt("hello");
    const [report] = hookEvents(events);
    expect(report).toMatchObject({ hookEvent: "UserPromptSubmit", outcome: "error", exitCode: 1 });
    expect(JSON.stringify(events)).not.toContain(token);
  });
});

describe("PostToolUse", () => {
  it("sees the tool's response, and its additionalContext reaches the model with the result", async () => {
    hooked = await openHookProject(({ hooksDir }) => ({
      PostToolUse: [
        {
          matcher: "Read",
          hooks: [
            {
              type: "command",
              command: recording(
                hooksDir,
                "post.jsonl",
                `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"notes.txt is generated: edit notes.src instead"}}'`,
              ),
            },
          ],
        },
      ],
    }));
    const { server } = hooked;
    hooked.project.write("notes.txt", "the notes\n");
    server.enqueue(reply().toolUse("read_file", { path: "notes.txt" }, "toolu_read"), reply().text("Read."));
    await runPrompt("Read the notes.");
    const [post] = hooked.seen("post.jsonl");
    expect(post).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "read_file", tool_input: { path: "notes.txt" } });
    const response = post?.tool_response as { output: string; is_error: boolean } | undefined;
    expect(response?.output).toContain("the notes");
    expect(response?.is_error).toBe(false);
    const sent = requestText(messageRequests(server)[1]?.body);
    expect(sent).toContain("the notes");
    expect(sent).toContain("notes.txt is generated: edit notes.src instead");
  });
});

describe("UserPromptSubmit", () => {
  it("exit 2 blocks the prompt: nothing is sent or recorded, and the user is told why", async () => {
    hooked = await openHookProject(() => ({
      UserPromptSubmit: [
        { hooks: [{ type: "command", command: 'grep -q deploy && { echo "no deploys on Fridays" >&2; exit 2; }; exit 0' }] },
      ],
    }));
    const { server, services } = hooked;
    const { events, result } = await runPrompt("deploy to production");
    expect(result.stopReason).toBe("blocked");
    expect(result.error).toEqual({ kind: "hook", message: "no deploys on Fridays" });
    expect(messageRequests(server)).toHaveLength(0);
    expect(services.sessions.get(result.sessionId)).toBeUndefined();
    expect(hookEvents(events)[0]).toMatchObject({ hookEvent: "UserPromptSubmit", outcome: "blocked", message: "no deploys on Fridays" });
  });

  it("plain stdout on exit 0 is context the model gets with the prompt", async () => {
    hooked = await openHookProject(() => ({
      UserPromptSubmit: [{ hooks: [{ type: "command", command: "cat > /dev/null; echo 'Sprint goal: ship the parser.'" }] }],
    }));
    const { server } = hooked;
    server.enqueue(reply().text("Noted."));
    const { result } = await runPrompt("What should I work on?");
    expect(result.stopReason).toBe("end_turn");
    const sent = requestText(messageRequests(server)[0]?.body);
    expect(sent).toContain("What should I work on?");
    expect(sent).toContain("<hook-context>\\nSprint goal: ship the parser.\\n</hook-context>");
  });
});

describe("Stop", () => {
  it("exit 2 keeps the agent going with the reason; told stop_hook_active, the hook lets it stop", async () => {
    hooked = await openHookProject(({ hooksDir }) => ({
      Stop: [
        {
          hooks: [
            {
              type: "command",
              command: recording(
                hooksDir,
                "stop.jsonl",
                `grep -q '"stop_hook_active":true' '${join(hooksDir, "stop.jsonl")}' && exit 0; echo "run the tests before you stop" >&2; exit 2`,
              ),
            },
          ],
        },
      ],
    }));
    const { server } = hooked;
    server.enqueue(reply().text("Done."), reply().text("Tests pass; done."));
    const { events, result } = await runPrompt("Fix the bug.");
    expect(result.stopReason).toBe("end_turn");
    expect(result.response).toBe("Tests pass; done.");
    expect(result.turns).toBe(2);
    const requests = messageRequests(server);
    expect(requests).toHaveLength(2);
    expect(requestText(requests[1]?.body)).toContain("run the tests before you stop");
    expect(hooked.seen("stop.jsonl").map((input) => input.stop_hook_active)).toEqual([false, true]);
    expect(hooked.seen("stop.jsonl")[0]).toMatchObject({ hook_event_name: "Stop", last_assistant_message: "Done." });
    expect(hookEvents(events).map((event) => event.outcome)).toEqual(["blocked", "ok"]);
  });
});

describe("a hook's script inside the project", () => {
  it("is not run once it changed during the session: the agent cannot have its own code run outside the sandbox", async () => {
    hooked = await openHookProject(
      ({ hooksDir }) => ({ PreToolUse: [{ hooks: [{ type: "command", command: `sh ./tools/guard.sh '${hooksDir}'` }] }] }),
      { files: { "tools/guard.sh": 'touch "$1/guard-ran"\nexit 0\n', "notes.txt": "the notes\n" } },
    );
    const { server, hooksDir } = hooked;
    server.enqueue(
      reply().toolUse("write_file", { path: "tools/guard.sh", content: 'touch "$1/escaped"\nexit 0\n' }, "toolu_write"),
      reply().toolUse("read_file", { path: "notes.txt" }, "toolu_read"),
      reply().text("Done."),
    );
    const { events } = await runPrompt("Change the guard, then read the notes.", { permissionMode: "bypass" });
    expect(existsSync(join(hooksDir, "guard-ran"))).toBe(true);
    expect(existsSync(join(hooked.project.root, "tools/guard.sh"))).toBe(true);
    expect(readFileSync(join(hooked.project.root, "tools/guard.sh"), "utf8")).toContain("escaped");
    expect(existsSync(join(hooksDir, "escaped"))).toBe(false);
    const [before, after] = hookEvents(events);
    expect(before).toMatchObject({ toolName: "write_file", outcome: "ok" });
    expect(after).toMatchObject({ toolName: "read_file", outcome: "error" });
    expect(after?.message).toContain("tools/guard.sh changed during this session");
  });
});
