import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAgentSession } from "../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { AgentPlacement } from "../../src/roles/agent-types.js";
import { AGENT_TYPES } from "../../src/roles/agent-types.js";
import { roleOf } from "../../src/roles/role-registry.js";
import { SESSION_TOOL_NAMES } from "../../src/roles/tool-names.js";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { drain, drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** `--agent` (here `agent.type`) selects the role's prompt and tools, through a real session. */
let server: FakeAnthropicServer;
let project: TempProject;
let services: ProjectServices;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject(ledgerFiles());
  services = openProject({ root: project.root, env: project.env });
  await drainIndex(services);
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

/** Two long files that answer the prompt below well, and a few that do not. */
function ledgerFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of ["ledger-reconciliation", "ledger-settlement"]) {
    const lines = [`// Ledger reconciliation of settlement batches: each batch is matched against the bank statement.`];
    for (let index = 0; index < 44; index++) {
      lines.push(
        `export function reconcileLedgerBatch${index}(batch: SettlementBatch, statement: BankStatement): number { return matchLedgerEntries(batch.entries, statement.lines, ${index}); }`,
      );
    }
    files[`src/${name}.ts`] = `${lines.join("\n")}\n`;
  }
  files["src/unrelated.ts"] = "export const colour = 'blue';\n";
  return files;
}

async function requestOf(
  type: string,
  placement: AgentPlacement = "main",
  prompt = "Where are ledger settlement batches reconciled against the bank statement?",
) {
  server.enqueue(reply().text("Done."));
  const env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_AGENT_TYPE: type,
  };
  const session = openAgentSession({ services: openedWith(env), env, placement });
  const { events } = await drain(session.run(prompt, new AbortController().signal));
  session.close();
  const body = messageRequests(server).at(-1)?.body as any;
  const system = (Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : body.system) as string;
  const sent = body.tools as Array<{ name: string; description: string }>;
  const findTools = sent.find((tool) => tool.name === "find_tools");
  return {
    sent: sent.map((tool) => tool.name).filter((name) => name !== "find_tools"),
    /** The deferred tools, as find_tools names them. */
    deferred: findTools ? (/Available to load: (.*)\.$/.exec(findTools.description)?.[1] ?? "").split(", ") : [],
    get tools(): string[] {
      return [...this.sent, ...this.deferred];
    },
    system,
    prefetch: events.find((event) => event.type === "prefetch"),
  };
}

/** The same project's services with the role's settings: configuration is read when a project opens. */
function openedWith(env: NodeJS.ProcessEnv): ProjectServices {
  const reopened = openProject({ root: project.root, env });
  opened.push(reopened);
  return reopened;
}
const opened: ProjectServices[] = [];
afterEach(async () => {
  for (const services of opened.splice(0)) await services.close();
});

describe("agent roles", () => {
  it("each role's request carries its prompt and exactly its tools that this Sylk has, sent or named by find_tools", async () => {
    for (const type of AGENT_TYPES) {
      const { tools, sent, deferred, system } = await requestOf(type);
      expect({ type, tools: [...tools].sort() }).toEqual({
        type,
        tools: roleOf(type)
          .tools.filter((tool) => (SESSION_TOOL_NAMES as readonly string[]).includes(tool))
          .sort(),
      });
      expect(system).toContain(`## Your role: ${type}`);
      const more = deferred.length > 0 ? `; find_tools loads ${deferred.length} more` : "";
      expect(system).toContain(`tools: ${sent.join(", ")}${more}.`);
    }
  }, 60_000);

  it("a read-only role is never offered a write or a command, nor told how to edit", async () => {
    for (const type of ["librarian", "archivalist", "academic", "architect", "inspector"]) {
      const { tools, system } = await requestOf(type);
      expect(tools).not.toContain("edit_file");
      expect(tools).not.toContain("write_file");
      expect(tools).not.toContain("run_command");
      expect(system).not.toContain("edit_file replaces");
      expect(system).not.toContain("run_command");
    }
    const engineer = await requestOf("engineer");
    expect(engineer.tools).toEqual(expect.arrayContaining(["edit_file", "write_file", "run_command"]));
    expect(engineer.system).toContain("edit_file replaces an exact string");
  }, 60_000);

  it("the session offers exactly the tools Sylk lists by name", async () => {
    // Across the roles every tool a session builds is offered to someone; SESSION_TOOL_NAMES is what `sylk agents` reports from.
    const offered = new Set<string>();
    for (const type of AGENT_TYPES) for (const tool of (await requestOf(type)).tools) offered.add(tool);
    expect([...offered].sort()).toEqual([...SESSION_TOOL_NAMES].sort());
  }, 60_000);

  it("a pipeline role working for a pipeline prefetches within 1,000 tokens; as the main agent it has the full budget", async () => {
    const focused = await requestOf("engineer", "pipeline");
    const full = await requestOf("engineer", "main");
    expect(full.prefetch?.tokens).toBeGreaterThan(1_000);
    expect(focused.prefetch?.tokens ?? 0).toBeLessThanOrEqual(1_000);
    const knowledge = await requestOf("librarian", "pipeline");
    expect(knowledge.prefetch?.tokens).toBeGreaterThan(1_000);
  });

  it("the orchestrator gets no code prefetch, and its workflow instead", async () => {
    const { prefetch } = await requestOf("orchestrator");
    expect(prefetch).toBeUndefined();
    const body = messageRequests(server).at(-1)?.body as any;
    expect(JSON.stringify(body.messages)).toContain("[WORKFLOW · no task list yet: keep one with todo_write]");
  });
});
