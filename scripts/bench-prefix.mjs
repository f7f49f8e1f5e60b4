#!/usr/bin/env node
// The fixed prefix of each role's first request: the system prompt and every tool definition sent,
// in tokens as Sylk counts them for the window (characters / 4, before the count learns the model's
// tokenizer), read from the request a real session sends to the fake Messages API. Engineer first.
//
//   node scripts/bench-prefix.mjs [--knowledge] [--json <file>]
//
// `--knowledge` turns knowledge.enabled on (its save/search/skill tools join the roles that use them).
// Then an engineer's run in an 8,000-token window (context.windowTokens): two 1,600-token files read,
// find_tools loading two tools, a grep, an answer; each request's size as the API would count it
// (the fake's estimate of the body, the room for the answer added) against the window.
// Needs a fresh `npm run build`: it loads dist/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { estimateTokens as estimateRequest, startFakeMessagesServer } from "./lib/fake-messages-server.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { knowledge: { type: "boolean" }, json: { type: "string" } } });
const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { openAgentSession } = await import(join(repo, "dist/src/app/session/open-agent-session.js"));
const { AGENT_TYPES } = await import(join(repo, "dist/src/roles/agent-types.js"));
const { estimateTokens } = await import(join(repo, "dist/src/tokens/estimate-tokens.js"));

const ROLES = ["engineer", ...AGENT_TYPES.filter((type) => type !== "engineer")];

/** The engineer's steps in the small window; any later request is answered with text. */
const SMALL_WINDOW_STEPS = [
  { name: "read_file", input: { path: "src/ledger-a.ts" } },
  { name: "find_tools", input: { names: ["get_symbol_context", "web_fetch"] } },
  { name: "read_file", input: { path: "src/ledger-b.ts" } },
  { name: "grep", input: { pattern: "ledgerEntry15" } },
];
let smallWindow = false;
/** The number of the small window's first request. */
let smallWindowFirst = 0;
const server = await startFakeMessagesServer({
  plan: (_body, number) => {
    const step = smallWindow ? SMALL_WINDOW_STEPS[number - smallWindowFirst] : undefined;
    return step ? { blocks: [{ type: "tool_use", id: `toolu_${number}`, ...step }] } : { blocks: [{ type: "text", text: "Done." }] };
  },
});
const base = mkdtempSync(join(tmpdir(), "sylk-bench-prefix-"));
const root = join(base, "project");
mkdirSync(root);
writeFileSync(join(root, "README.md"), "# project\n");
const rows = [];
try {
  for (const type of ROLES) {
    const env = envFor(type);
    const services = openProject({ root, env });
    const session = openAgentSession({ services, env });
    const before = server.requests.length;
    const run = session.run("Say done.", new AbortController().signal);
    for (let step = await run.next(); !step.done; step = await run.next());
    session.close();
    await services.close();
    const body = server.requests[before]?.body;
    if (!body) throw new Error(`no request for ${type}`);
    rows.push(prefixOf(type, body));
  }
  smallWindow = true;
  smallWindowFirst = server.requests.length + 1;
  rows.push(await smallWindowRun());
} finally {
  await server.close();
  rmSync(base, { recursive: true, force: true });
}

function envFor(type) {
  return {
    ...process.env,
    HOME: base,
    SYLK_HOME: join(base, "home"),
    ANTHROPIC_API_KEY: "bench",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_CONTEXT_PREFETCH: "false",
    SYLK_AGENT_TYPE: type,
    ...(values.knowledge ? { SYLK_KNOWLEDGE_ENABLED: "true" } : {}),
  };
}

/** The engineer in an 8,000-token window: every request's size, and the largest. */
async function smallWindowRun() {
  mkdirSync(join(root, "src"), { recursive: true });
  for (const name of ["a", "b"]) {
    const lines = Array.from({ length: 160 }, (_, index) => `export const ledgerEntry${index} = computeLedger(${index}, "${name}");`);
    writeFileSync(join(root, `src/ledger-${name}.ts`), `${lines.join("\n")}\n`);
  }
  const env = { ...envFor("engineer"), SYLK_CONTEXT_WINDOW_TOKENS: "8000" };
  const services = openProject({ root, env });
  const session = openAgentSession({ services, env });
  const before = server.requests.length;
  const run = session.run("Where are the ledger entries settled?", new AbortController().signal);
  let step = await run.next();
  for (; !step.done; step = await run.next());
  session.close();
  await services.close();
  const sizes = server.requests.slice(before).map((request) => estimateRequest(request.body) + request.body.max_tokens);
  return {
    role: "engineer in 8,000",
    stopReason: step.value.stopReason,
    sizes,
    largest: sizes.length > 0 ? Math.max(...sizes) : undefined,
  };
}

/** The request's fixed part as `prefixTokensOf` counts it: the system prompt, then the tools as Sylk's specs. */
function prefixOf(type, body) {
  const system = Array.isArray(body.system) ? body.system.map((block) => block.text).join("\n") : (body.system ?? "");
  const tools = (body.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.input_schema }));
  const toolTokens = estimateTokens(JSON.stringify(tools));
  const systemTokens = estimateTokens(system);
  const perTool = Object.fromEntries(tools.map((tool) => [tool.name, estimateTokens(JSON.stringify(tool))]));
  return { role: type, tools: tools.length, systemTokens, toolTokens, prefixTokens: systemTokens + toolTokens, perTool };
}

console.log(`| role | tools sent | system prompt | tool definitions | fixed prefix |`);
console.log(`| --- | ---: | ---: | ---: | ---: |`);
const small = rows.pop();
for (const row of rows) {
  console.log(`| ${row.role} | ${row.tools} | ${row.systemTokens} | ${row.toolTokens} | ${row.prefixTokens} |`);
}
const engineer = rows[0];
console.log(
  `\nengineer, per tool: ${Object.entries(engineer.perTool)
    .map(([name, tokens]) => `${name} ${tokens}`)
    .join(", ")}`,
);
console.log(
  small.sizes.length > 0
    ? `\nengineer in an 8,000-token window: ${small.sizes.length} requests (${small.stopReason}), sizes ${small.sizes.join(", ")}; largest ${small.largest}`
    : `\nengineer in an 8,000-token window: no request sent (${small.stopReason})`,
);
if (values.json) writeFileSync(values.json, `${JSON.stringify({ roles: rows, smallWindow: small }, null, 2)}\n`);
