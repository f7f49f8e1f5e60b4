#!/usr/bin/env node
// Runs the official MCP conformance suite's server scenarios against
// `sylk mcp serve --http` in a temporary indexed project, and prints a table
// of what passed, what failed, and which scenarios do not apply to Sylk's
// server (and why).
//
//   npm run build && node scripts/supported-node.mjs node scripts/mcp-conformance.mjs [--json] [--keep]
//
// The suite is installed and run as scripts/lib/mcp-conformance-suite.mjs
// says; scripts/mcp-conformance-client.mjs runs its client scenarios.
//
// The suite's client sends no Authorization header, and Sylk's HTTP server
// refuses every request without its bearer token: a relay on another
// loopback port adds the token and passes everything else through as it
// came (the Host and Origin headers included, so the DNS rebinding scenario
// still reaches Sylk's own check).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CONFORMANCE_VERSION,
  conformanceEntry,
  fail as failScript,
  printTable,
  readResults,
  requireSupportedNode,
  runSuite,
} from "./lib/mcp-conformance-suite.mjs";

/**
 * Scenarios that test a capability Sylk's server does not offer: each needs
 * the suite's own fixtures on the server (tools named `test_*`, resources,
 * prompts, completions) or a client feature a read-only index server never
 * uses. Such a scenario counts as not applicable only when it failed the way
 * a missing capability fails (the method or the tool is not found); any
 * other failure is a failure.
 */
const MISSING = /Method not found|Unknown tool|not found/;
const NOT_APPLICABLE = [
  [
    /^tools-call-(simple-text|image|audio|embedded-resource|mixed-content|with-logging|error|with-progress)$/,
    "needs the suite's test_* tool; Sylk serves only its own read-only tools",
  ],
  [/^tools-call-(sampling|elicitation)$/, "needs a tool that asks the client (sampling, elicitation); Sylk's tools never do"],
  [/^elicitation-/, "elicitation: Sylk's server never asks the client for input"],
  [/^json-schema-2020-12$/, "needs the suite's json_schema_2020_12_tool; Sylk's schemas are its tools' own"],
  [/^resources-/, "resources: Sylk offers tools only (no resources capability)"],
  [/^prompts-/, "prompts: Sylk offers tools only (no prompts capability)"],
  [/^completion-/, "completions: Sylk offers no prompts or resource templates to complete"],
];

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));

const fail = (message) => failScript("mcp-conformance", message);

/** A small project, indexed, with its own SYLK_HOME. */
function indexedProject(base) {
  const root = join(base, "project");
  const files = {
    "src/billing/invoice.ts":
      "export function applyDiscount(amount: number, percent: number): number {\n  return amount - (amount * percent) / 100;\n}\n\nexport function computeInvoiceTotal(lines: number[], percent: number): number {\n  return applyDiscount(lines.reduce((sum, line) => sum + line, 0), percent);\n}\n",
    "src/checkout.ts":
      'import { computeInvoiceTotal } from "./billing/invoice";\n\nexport function checkout(lines: number[]): number {\n  return computeInvoiceTotal(lines, 10);\n}\n',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const env = { ...process.env, SYLK_HOME: join(base, "home"), HOME: base, CI: "true", NO_COLOR: "1" };
  const indexed = spawnSync(process.execPath, [join(repo, "bin", "sylk.js"), "index", "--yes"], { cwd: root, env, encoding: "utf8" });
  if (indexed.status !== 0) fail(`sylk index failed: ${indexed.stderr}`);
  return { root, env };
}

/** `sylk mcp serve --http 0`, resolved once it has printed its endpoint and token. */
function startServer(project) {
  const child = spawn(process.execPath, [join(repo, "bin", "sylk.js"), "mcp", "serve", "--http", "0"], {
    cwd: project.root,
    env: project.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolvePromise, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const url = /^MCP endpoint: (\S+)$/m.exec(stdout)?.[1];
      const token = /^Authorization: Bearer (\S+)$/m.exec(stdout)?.[1];
      if (url && token) resolvePromise({ child, url: new URL(url), token });
    });
    child.once("exit", (code) => reject(new Error(`sylk mcp serve exited (${code}): ${stderr}`)));
  });
}

/** A loopback relay that adds the bearer token to every request and passes the rest through, streams included. */
function startRelay(target, token) {
  const relay = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  return new Promise((resolvePromise) => relay.listen(0, "127.0.0.1", () => resolvePromise(relay)));
}

function classify({ scenario, checks }) {
  const failed = checks.filter((check) => check.status === "FAILURE");
  const passed = checks.filter((check) => check.status === "SUCCESS").length;
  const warnings = checks.filter((check) => check.status === "WARNING").map((check) => `warning ${check.id}`);
  const reason = NOT_APPLICABLE.find(([pattern]) => pattern.test(scenario))?.[1];
  if (failed.length === 0) return { scenario, result: "pass", passed, failed: 0, note: warnings.join("; ") };
  if (reason && failed.every((check) => MISSING.test(check.errorMessage ?? ""))) {
    return { scenario, result: "n/a", passed, failed: failed.length, note: reason };
  }
  const why = failed.map((check) => `${check.id}: ${check.errorMessage ?? ""}`).join("; ");
  return { scenario, result: "FAIL", passed, failed: failed.length, note: why };
}

async function main() {
  requireSupportedNode("mcp-conformance", "scripts/mcp-conformance.mjs");
  if (!existsSync(join(repo, "dist", "bundle", "main.js"))) fail("build first: npm run build");
  const entry = conformanceEntry("mcp-conformance");
  const base = mkdtempSync(join(tmpdir(), "sylk-mcp-conformance-"));
  let server;
  let relay;
  try {
    const project = indexedProject(base);
    server = await startServer(project);
    relay = await startRelay(server.url, server.token);
    const relayUrl = `http://127.0.0.1:${relay.address().port}${server.url.pathname}`;
    const outputDir = join(base, "results");
    // Not spawnSync: the relay runs in this process and must answer while the suite runs.
    const suite = await runSuite(entry, ["server", "--url", relayUrl, "--suite", "all", "-o", outputDir]);
    if (!existsSync(outputDir)) fail(`the suite wrote no results (exit ${suite.code}): ${suite.stderr}`);
    const rows = readResults(outputDir, "server-").map(classify);
    if (args.has("--json")) {
      process.stdout.write(`${JSON.stringify({ version: CONFORMANCE_VERSION, rows }, null, 2)}\n`);
    } else {
      printTable(
        `@modelcontextprotocol/conformance ${CONFORMANCE_VERSION}, server scenarios (suite "all") against sylk mcp serve --http`,
        rows,
      );
    }
    if (rows.some((row) => row.result === "FAIL")) process.exitCode = 1;
    if (args.has("--keep")) process.stderr.write(`results kept in ${outputDir}\n`);
  } finally {
    relay?.close();
    relay?.closeAllConnections();
    if (server) {
      server.child.kill("SIGTERM");
      await new Promise((resolvePromise) => server.child.once("exit", resolvePromise));
    }
    if (!args.has("--keep")) rmSync(base, { recursive: true, force: true });
  }
}

await main();
