import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentResult } from "../../src/agent/agent-events.js";
import { openAgentSession, type AgentSession } from "../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { entryTermCounts } from "../../src/parsing/term-counts.js";
import { termsFromCounts } from "../../src/search/full-text-document.js";
import {
  messageRequests,
  reply,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
  type ReplyBuilder,
} from "../helpers/fake-anthropic-server.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { withProjectDatabase } from "../helpers/project-database.js";

/**
 * Secrets are masked before anything is stored or sent: whatever carries
 * them (a tool's input, a tool's result, the model's answer, a note the
 * model saves), the database file, every other file Sylk keeps and every
 * request to the model are searched byte for byte for the raw values.
 */
const JWT_PAYLOAD = "eyJzdWIiOiJzeWxrLXRlc3QtdXNlciJ9";
const KEY_BODY = "MIIEowIBAAKCAQEAsylkTestOnlyPrivateKeyMaterial0123456789";
const SECRETS = {
  aws: "AKIAIOSFODNN7EXAMPLE",
  github: "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa",
  privateKey: KEY_BODY,
  urlPassword: "Sup3rS3cretPw",
  jwt: JWT_PAYLOAD,
};
/** Each secret as it is written where it is used: what masking recognises. */
const DATABASE_URL = `postgres://admin:${SECRETS.urlPassword}@db.internal/app`;
const JWT = `eyJhbGciOiJIUzI1NiJ9.${JWT_PAYLOAD}.c2lnbmF0dXJlLXNlY3JldC12YWx1ZQ`;
const KEY_BLOCK = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "MIIEpAIBAAKCAQEAfirstLine",
  "Zm9vYmFyYmF6secondLine",
  "cXV4cXV1eHRoirdLine",
  KEY_BODY,
  "-----END RSA PRIVATE KEY-----",
].join("\n");
const FILE_WITH_SECRETS = [
  `export const awsKeyId = "${SECRETS.aws}";`,
  `export const githubToken = "${SECRETS.github}";`,
  `export const databaseUrl = "${DATABASE_URL}";`,
  `export const session = "${JWT}";`,
  `export const deployKey = \`${KEY_BLOCK}\`;`,
  'export const region = "eu-west-1";',
  "",
].join("\n");
const ALL = [SECRETS.aws, SECRETS.github, DATABASE_URL, JWT, KEY_BLOCK].join("\n");

let project: TempProject;
let server: FakeAnthropicServer;
let services: ProjectServices;

const env = () => ({
  ...project.env,
  ANTHROPIC_API_KEY: "test",
  ANTHROPIC_BASE_URL: server.baseUrl,
  SYLK_MODEL_MAX_ATTEMPTS: "1",
  SYLK_LEARNING_ENABLED: "true",
  SYLK_KNOWLEDGE_ENABLED: "true",
  SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true",
  SYLK_OBSERVATIONAL_MEMORY_MESSAGE_TOKEN_THRESHOLD: "100",
  SYLK_SANDBOX_ENABLED: "false",
});

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n", "src/settings.ts": FILE_WITH_SECRETS });
  services = openProject({ root: project.root, env: env() });
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

async function ask(session: AgentSession, prompt: string): Promise<AgentResult> {
  return (await drain(session.run(prompt, new AbortController().signal))).result;
}

/** Every file under a directory, recursively. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const isObserver = (body: { messages: unknown }) => JSON.stringify(body.messages).includes("Write a compressed observation");
const observerCalls = (requests: Array<{ body: { messages: unknown } }>) => requests.filter((request) => isObserver(request.body)).length;

/**
 * The model's answers in order; the observer (the session's model, in the background, whenever a
 * turn passes its threshold) is answered apart, with a note that repeats a secret it was never shown.
 */
function script(...answers: ReplyBuilder[]): void {
  const queue = [...answers];
  // The observer is called as the run goes (its threshold here is low enough for every model call), each call taking a slot.
  server.enqueue(
    ...Array.from(
      { length: 2 * answers.length + 4 },
      () => (body: { messages: unknown }) => (isObserver(body) ? observerAnswer() : (queue.shift() ?? reply().text("(unscripted)"))),
    ),
  );
}

/** The requests of the runs, without the observer's (which come as the runs go). */
const runRequests = () => messageRequests(server).filter((request) => !isObserver(request.body));

const observerAnswer = () => reply().text(`- The user deploys with ${SECRETS.aws} and ${DATABASE_URL}.`);

function expectNoSecretIn(text: string, where: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) expect(text.includes(secret), `${name} in ${where}`).toBe(false);
}

describe("secrets through every tool", () => {
  it("are masked in the database file, in every file Sylk keeps and in every request, while the tools get the real values", async () => {
    script(
      reply().text(`I will keep ${SECRETS.github} in mind.`).toolUse("write_file", { path: "deploy/db.ts", content: FILE_WITH_SECRETS }),
      reply().toolUse("read_file", { path: "deploy/db.ts" }).toolUse("run_command", { command: "cat deploy/db.ts" }),
      reply()
        .toolUse("search_codebase", { query: `token ${SECRETS.github}` })
        .toolUse("search_history", { query: `database ${DATABASE_URL}` }),
      reply().toolUse("save_knowledge", {
        kind: "fact",
        key: `deploy token ${SECRETS.github}`,
        content: `The database is ${DATABASE_URL}`,
        category: SECRETS.aws,
      }),
      reply().toolUse("todo_write", {
        todos: [{ content: `Rotate ${SECRETS.github}`, status: "pending" }],
        decisions: [`Keep ${SECRETS.aws} out of git`],
      }),
      reply().toolUse("delegate", { agent: "librarian", task: `Find where ${SECRETS.github} is used` }),
      // The sub-agent's answer, in its own session.
      reply().text(`It is used in deploy/db.ts, beside ${DATABASE_URL}.`),
      reply().text(`Done. The key id is ${SECRETS.aws}, and all of them:\n${ALL}`),
    );
    const session = openAgentSession({ services, env: env(), permissionMode: "bypass" });
    const first = await ask(session, "Set up the deploy configuration");
    expect(first.stopReason, JSON.stringify(first.error)).toBe("end_turn");
    // The tool got the real input: the file on disk holds every secret.
    expect(readFileSync(join(project.root, "deploy/db.ts"), "utf8")).toBe(FILE_WITH_SECRETS);
    // The answer as the user reads it is the model's own.
    expect(first.response).toContain(SECRETS.aws);

    script(reply().text(`Still ${JWT}.`));
    await ask(session, "Anything else?");
    await session.settleMemory();
    session.close();

    const requests = messageRequests(server);
    expect(observerCalls(requests)).toBeGreaterThan(0);
    expect(requests.length - observerCalls(requests)).toBe(9);
    expect(requests.filter((request) => JSON.stringify(request.body.system).includes("Your role: librarian"))).toHaveLength(1);
    for (const [index, request] of requests.entries()) expectNoSecretIn(JSON.stringify(request.body), `request ${index + 1}`);
    // What was masked is still there as a marker: the model saw that its own call held a key.
    expect(JSON.stringify(requests[1]?.body)).toContain("[REDACTED:github-token]");

    await services.close();
    const { dataDir } = resolveProjectPaths(project.root, env());
    const kept = filesUnder(project.sylkHome);
    expect(kept).toContain(join(dataDir, "observations.log"));
    for (const path of kept) expectNoSecretIn(readFileSync(path).toString("latin1"), path);
    services = openProject({ root: project.root, env: env() });
  });

  it("stored before masking, a search_history result and a resumed conversation are masked before they are sent", async () => {
    // What a database written by an earlier Sylk holds: an entry and a session's messages, raw.
    const legacy = "legacy-session";
    services.sessions.create({ id: legacy, title: "old", provider: "anthropic", model: "claude" });
    services.sessions.appendMessage(
      legacy,
      { role: "user", content: [{ type: "text", text: `deploy with ${SECRETS.github}` }] },
      { turn: 1 },
    );
    services.sessions.appendMessage(
      legacy,
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_old", name: "write_file", input: { path: "deploy/db.ts", content: FILE_WITH_SECRETS } }],
      },
      { turn: 1 },
    );
    services.sessions.appendMessage(
      legacy,
      { role: "user", content: [{ type: "tool_result", toolUseId: "toolu_old", content: `Wrote ${DATABASE_URL}`, isError: false }] },
      { turn: 1 },
    );
    services.sessions.appendMessage(legacy, { role: "assistant", content: [{ type: "text", text: `Done: ${JWT}` }] }, { turn: 1 });
    const content = `The deploy configuration: ${ALL}`;
    const terms = termsFromCounts(entryTermCounts(content));
    const doc = services.entries.insert(
      {
        id: "legacy-entry",
        contentHash: "",
        sessionId: legacy,
        agentId: "a",
        agentType: "engineer",
        contentType: "agent_response",
        content,
        tokenCount: 100,
        timestamp: 1,
        turnNumber: 1,
        keywords: [],
        entities: [],
        childIds: [],
        relatedFiles: [],
        metadata: {},
      },
      terms.distinct.join(" "),
      terms.count,
    );
    services.historyFullText.apply([], [{ id: doc, terms: terms.distinct.join(" "), length: terms.count }]);

    script(
      reply().toolUse("search_history", { query: "deploy configuration" }).toolUse("get_turn_range", { from_turn: 0, to_turn: 5 }),
      reply().text("Found it."),
    );
    const session = openAgentSession({ services, env: { ...env(), SYLK_OBSERVATIONAL_MEMORY_ENABLED: "false" }, resume: { id: legacy } });
    const result = await ask(session, "What did we set up?");
    expect(result.stopReason, JSON.stringify(result.error)).toBe("end_turn");
    session.close();

    const [first, second] = runRequests().map((request) => JSON.stringify(request.body));
    expect(first).toContain("deploy with [REDACTED:github-token]");
    expect(second).toContain("The deploy configuration:");
    for (const [index, sent] of [first, second].entries()) expectNoSecretIn(sent ?? "", `request ${index + 1}`);
  });

  it("an edit beside the secrets of a file that holds them: its diff is masked in every request and every table, the lines of a key whose first line is outside it included", async () => {
    script(
      reply().toolUse("edit_file", { path: "src/settings.ts", old_string: "export const region", new_string: "export const deployRegion" }),
      reply().text("Renamed."),
    );
    const session = openAgentSession({ services, env: { ...env(), SYLK_OBSERVATIONAL_MEMORY_ENABLED: "false" }, permissionMode: "bypass" });
    const result = await ask(session, "Rename deployKey");
    expect(result.stopReason, JSON.stringify(result.error)).toBe("end_turn");
    session.close();
    expect(readFileSync(join(project.root, "src/settings.ts"), "utf8")).toBe(
      FILE_WITH_SECRETS.replace("export const region", "export const deployRegion"),
    );

    const sent = JSON.stringify(runRequests()[1]?.body);
    expect(sent).toContain("[REDACTED:private-key]");
    expectNoSecretIn(sent, "the request after the edit");
    // The checkpoint /undo restores holds the file as it was, by design of another part; every other table is searched.
    withProjectDatabase(services.paths, (db) => {
      for (const { name } of db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'file_checkpoints'")
        .all() as Array<{ name: string }>) {
        const rows = db.prepare(`SELECT * FROM "${name}"`).raw().all() as unknown[][];
        expectNoSecretIn(
          rows
            .flat()
            .map((value) => (Buffer.isBuffer(value) ? value.toString("latin1") : String(value)))
            .join("\n"),
          name,
        );
      }
    });
  });
});
