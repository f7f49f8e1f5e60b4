import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** web_fetch through `sylk ask`: the real tool against a local HTTP server, the real SDK against a fake Messages API. */
let model: FakeAnthropicServer;
let project: TempProject;
let env: NodeJS.ProcessEnv;
let site: Server;
let port: number;
/** The paths the local site was asked for. */
let hits: string[];

const TAIL = "Quetzalcoatlus";
const SECRET = `sk-ant-api03-${"Zy9x".repeat(10)}`;
const PAGE = [
  "<html><head><title>Sylk docs</title><style>body{color:red}</style><script>alert('x')</script></head><body>",
  "<h2>Getting started</h2><p>Install it with <code>npm install</code>.</p>",
  ...Array.from({ length: 600 }, (_, index) => `<p>Paragraph ${index} says something about the index and its references.</p>`),
  `<p>${TAIL}</p></body></html>`,
].join("\n");

beforeEach(async () => {
  hits = [];
  site = createServer((request, response) => {
    const path = request.url ?? "/";
    hits.push(path);
    if (path === "/page") return response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    if (path === "/secret") return response.writeHead(200, { "content-type": "text/plain" }).end(`deploy with ${SECRET}\n`);
    if (path === "/same") return response.writeHead(302, { location: "/page" }).end();
    if (path === "/away") return response.writeHead(301, { location: `http://localhost:${port}/page` }).end();
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  port = (site.address() as AddressInfo).port;
  model = await startFakeAnthropicServer();
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: model.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await model.close();
  await new Promise((resolve) => site.close(resolve));
  project.cleanup();
});

const sylk = (args: string[]) => runCli(args, { cwd: project.root, env });
/** Rules in the user's own ~/.sylkrc (a project's permissions need trust). */
const allow = (...rules: string[]) =>
  writeFileSync(join(project.env.HOME as string, ".sylkrc"), JSON.stringify({ permissions: { allow: rules } }));

type Block = { type: string; content?: unknown };
/** The tool_result the model got in request `index`. */
function toolResult(index: number): string {
  const messages = messageRequests(model)[index]?.body.messages as Array<{ content: Block[] | string }>;
  const last = messages.at(-1)?.content;
  const block = Array.isArray(last) ? last.find((candidate) => candidate.type === "tool_result") : undefined;
  return typeof block?.content === "string" ? block.content : JSON.stringify(block?.content);
}

async function fetchOnce(url: string): Promise<string> {
  model.enqueue(reply().toolUse("web_fetch", { url }), reply().text("Read it."));
  const run = await sylk(["ask", "--yes", `read ${url}`]);
  expect(run.code, run.stderr).toBe(0);
  // The request after the call carries its result.
  return toolResult(messageRequests(model).length - 1);
}

describe("web_fetch", () => {
  it("asks by default: a run that cannot ask refuses, and nothing is fetched", async () => {
    const result = await fetchOnce(`http://127.0.0.1:${port}/page`);
    expect(result).toContain("Permission denied");
    expect(result).toContain(`web_fetch(domain:127.0.0.1)`);
    expect(hits).toEqual([]);
  });

  it("a web_fetch(domain:127.0.0.1) rule allows it: the page comes back as bounded markdown, stored, the rest retrievable behind a marker", async () => {
    allow("web_fetch(domain:127.0.0.1)");
    model.enqueue(
      reply().toolUse("web_fetch", { url: `http://127.0.0.1:${port}/page`, max_tokens: 1000 }),
      (body: { messages: Array<{ content: Block[] }> }) => {
        const result = JSON.stringify(body.messages.at(-1)?.content);
        const refId = /ref_id=\\"([0-9a-f]{8})\\"/.exec(result)?.[1] ?? "none";
        return reply().toolUse("retrieve_context", { ref_id: refId, max_tokens: 10_000 });
      },
      reply().text("Done."),
    );
    const run = await sylk(["ask", "--yes", "read the docs page"]);
    expect(run.code, run.stderr).toBe(0);
    const page = toolResult(1);
    expect(page).toContain(`http://127.0.0.1:${port}/page (text/html`);
    expect(page).toContain("# Sylk docs");
    expect(page).toContain("## Getting started");
    expect(page).toContain("Install it with `npm install`.");
    expect(page).not.toContain("alert(");
    expect(page).not.toContain("color:red");
    expect(page).not.toContain(TAIL);
    expect(page).toMatch(/parts 2–5 of \d+: \[CTX-REF:/);
    expect(page.length).toBeLessThan(8_000);
    // The first reference brings back the next parts, byte for byte as stored.
    const retrieved = toolResult(2);
    expect(retrieved).toContain("Paragraph 100 says something");
  });

  it("the stored page is found by search_history, to its last paragraph", async () => {
    allow("web_fetch(domain:127.0.0.1)");
    model.enqueue(
      reply().toolUse("web_fetch", { url: `http://127.0.0.1:${port}/page`, max_tokens: 500 }),
      reply().toolUse("search_history", { query: TAIL, content_type: "web_fetch" }),
      reply().text("Found."),
    );
    const run = await sylk(["ask", "--yes", "read the docs page"]);
    expect(run.code, run.stderr).toBe(0);
    expect(toolResult(2)).toContain(TAIL);
  });

  it("follows a redirect on the same host; one to another host is reported with its target and not followed", async () => {
    allow("web_fetch(domain:127.0.0.1)");
    expect(await fetchOnce(`http://127.0.0.1:${port}/same`)).toContain("## Getting started");
    hits = [];
    const result = await fetchOnce(`http://127.0.0.1:${port}/away`);
    expect(result).toContain(`redirects (HTTP 301) to another host: http://localhost:${port}/page`);
    expect(result).toContain("It was not followed");
    expect(hits).toEqual(["/away"]);
  });

  it("a secret in a page is masked before the model or the store gets it", async () => {
    allow("web_fetch(domain:127.0.0.1)");
    const result = await fetchOnce(`http://127.0.0.1:${port}/secret`);
    expect(result).toContain("deploy with");
    expect(result).not.toContain(SECRET);
    expect(JSON.stringify(messageRequests(model).map((request) => request.body))).not.toContain(SECRET);
  });

  it("the rule is for that host exactly: another host is still asked about", async () => {
    allow("web_fetch(domain:127.0.0.1)");
    const result = await fetchOnce(`http://localhost:${port}/page`);
    expect(result).toContain("Permission denied");
    expect(hits).toEqual([]);
  });

  it("an unreachable host fails with a message that says so; a non-http scheme is refused before anyone is asked", async () => {
    allow("web_fetch");
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await fetchOnce(`http://127.0.0.1:${deadPort}/`)).toMatch(/127\.0\.0\.1:\d+ refused the connection \(ECONNREFUSED\).*offline/);
    expect(await fetchOnce("file:///etc/passwd")).toContain("Only http and https URLs are fetched, not file.");
  });
});
