import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentResult } from "../../../src/agent/agent-events.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { drain } from "../../helpers/drain.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/** Knowledge saved in one session is under "User Knowledge" in the next session's system prompt. */
let server: FakeAnthropicServer;
let project: TempProject;
let services: ProjectServices;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "package.json": '{ "name": "shop" }\n' });
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

function open(enabled: boolean) {
  const env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_KNOWLEDGE_ENABLED: String(enabled),
    // No one to ask here: the user's own rules let the agent keep knowledge and skills (approvals have their own tests).
    SYLK_PERMISSIONS_ALLOW: JSON.stringify(["save_knowledge", "create_skill"]),
  };
  services = openProject({ root: project.root, env });
  return env;
}

async function ask(env: NodeJS.ProcessEnv, prompt: string): Promise<AgentResult> {
  const session = openAgentSession({ services, env });
  const { result } = await drain(session.run(prompt, new AbortController().signal));
  session.close();
  return result;
}

const systemBlocks = (index: number): Array<{ text: string; cache_control?: unknown }> =>
  (messageRequests(server)[index]!.body as any).system;

describe("knowledge that lasts, end to end", () => {
  it("a rule saved in one session is in the next session's system prompt, after the cached prompt, when a prompt is about it", async () => {
    const env = open(true);
    server.enqueue(
      reply().toolUse(
        "save_knowledge",
        { kind: "rule", key: "package manager", content: "Always use pnpm in this repository, never npm.", category: "build" },
        "toolu_save",
      ),
      reply().text("Noted: pnpm."),
    );
    await ask(env, "Remember: we use pnpm here, never npm.");
    expect(services.knowledge.list({ limit: 10 }).map((item) => item.key)).toEqual(["package manager"]);

    server.enqueue(reply().text("pnpm install"));
    await ask(env, "How do I install the dependencies with the package manager?");
    const blocks = systemBlocks(2);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]?.cache_control).toEqual({ type: "ephemeral" });
    expect(blocks[0]?.text).not.toContain("## User Knowledge");
    expect(blocks[1]?.cache_control).toBeUndefined();
    expect(blocks[1]?.text).toContain("## User Knowledge\n- [build] package manager: Always use pnpm in this repository, never npm.");
    expect(blocks[1]?.text).toMatch(/^## Runtime Context\n- Session: [0-9a-f-]{36} \| Active tools: \d+ \| Knowledge: on \| Memory: off\n/);
    // A prompt the knowledge says nothing about leaves the request as it was.
    server.enqueue(reply().text("Hi."));
    await ask(env, "Say hello.");
    expect(systemBlocks(3)).toHaveLength(1);
  });

  it("with knowledge off (the default), there are no knowledge tools and the system prompt is one block, as before", async () => {
    const env = open(false);
    server.enqueue(reply().text("ok"));
    await ask(env, "How do I install the dependencies with the package manager?");
    const body = messageRequests(server)[0]?.body as any;
    expect(body.system).toHaveLength(1);
    expect(body.tools.map((tool: { name: string }) => tool.name)).not.toContain("save_knowledge");
  });

  it("a skill the agent created is offered under Available Skills when a later prompt is about it", async () => {
    const env = open(true);
    server.enqueue(
      reply().toolUse(
        "create_skill",
        {
          name: "release-notes",
          kind: "template",
          description: "Drafts release notes for a version from its changelog.",
          definition: { template: "Write release notes for {{version}}." },
        },
        "toolu_skill",
      ),
      reply().text("Created."),
    );
    await ask(env, "Make a skill for drafting release notes.");
    server.enqueue(reply().text("Using the skill."));
    await ask(env, "Draft the release notes for 2.0.");
    const augmentation = systemBlocks(2)[1]?.text ?? "";
    expect(augmentation).toContain("## Available Skills\n- release-notes: Drafts release notes for a version from its changelog.");
  });

  it("knowledge saved for every project (scope user, under $SYLK_HOME) is in another project's prompt, and no file is made for it until then", async () => {
    const env = open(true);
    expect(existsSync(join(project.sylkHome, "knowledge.db"))).toBe(false);
    server.enqueue(
      reply().toolUse(
        "save_knowledge",
        { kind: "preference", key: "commit style", content: "The user prefers small commits with imperative subjects.", scope: "user" },
        "toolu_user",
      ),
      reply().text("Noted for every project."),
    );
    await ask(env, "Remember for all my projects: small commits, imperative subjects.");
    expect(existsSync(join(project.sylkHome, "knowledge.db"))).toBe(true);
    expect(services.knowledge.list({ limit: 10 })).toEqual([]);

    const other = createTempProject({ "README.md": "# other\n" });
    try {
      await services.close();
      const otherEnv = { ...env, SYLK_HOME: project.sylkHome };
      services = openProject({ root: other.root, env: otherEnv });
      server.enqueue(reply().text("Small commits."));
      const session = openAgentSession({ services, env: otherEnv });
      await drain(session.run("How should I write my commits here?", new AbortController().signal));
      session.close();
      const augmentation = (messageRequests(server).at(-1)!.body as any).system[1]?.text ?? "";
      expect(augmentation).toContain("## User Knowledge\n- commit style: The user prefers small commits with imperative subjects.");
    } finally {
      other.cleanup();
    }
  });

  it("a fix learned for an error is under Known Solutions in the request after that error comes up again", async () => {
    // Edits allowed, so the edit runs and fails (a refused one is not an error to learn from).
    const env = { ...open(true), SYLK_PERMISSIONS_MODE: "accept-edits" };
    await services.close();
    services = openProject({ root: project.root, env });
    services.knowledge.save({
      layer: "agent_learnings",
      kind: "learning",
      key: "edit_file: old_string not found",
      content:
        'When edit_file failed with "old_string not found in package.json", this worked: old_string: "name: shop" → ""name": "shop"".',
      source: "agent",
      confidence: 0.6,
      details: { tool: "edit_file", signature: "old_string not found in <path>", successes: 1, failures: 0 },
    });
    server.enqueue(
      reply().toolUse("edit_file", { path: "package.json", old_string: "name: shop", new_string: "name: store" }, "toolu_miss"),
      reply().text("I will quote it."),
    );
    await ask(env, "Update it, please.");
    const first = (messageRequests(server)[0]!.body as any).system;
    const second = (messageRequests(server)[1]!.body as any).system;
    expect(JSON.stringify(first)).not.toContain("Known Solutions");
    expect(second[1]?.text).toContain("## Known Solutions\n- edit_file: old_string not found: When edit_file failed with");
  });
});
