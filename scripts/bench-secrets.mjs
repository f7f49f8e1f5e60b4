#!/usr/bin/env node
// Masking throughput: maskSecrets (src/security/secrets.ts) over ordinary source, every file under
// --tree joined, and over inputs built against each rule's pattern (long runs that the pattern's
// leading part matches from every start position), each --adversarial-kb long and ending with one
// real secret. Prints MB/s, best of --runs, in CPU time (on a shared machine the clock also counts
// the time spent waiting for a processor).
//
//   npm run build && node scripts/bench-secrets.mjs --tree src [--adversarial-kb 64] [--runs 3]
//                                                   [--module <a built secrets.js>]
//
// --module measures another build of the module, e.g. one bundled from an earlier commit
// (`git show main:src/security/secrets.ts > /tmp/old.ts && npx esbuild /tmp/old.ts --outfile=/tmp/old.js`).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    "adversarial-kb": { type: "string", default: "64" },
    runs: { type: "string", default: "3" },
    module: { type: "string" },
  },
});
if (!values.tree) {
  console.error("Usage: node scripts/bench-secrets.mjs --tree <dir> [--adversarial-kb 64] [--runs 3] [--module <secrets.js>]");
  process.exit(2);
}
const modulePath = values.module ? resolve(values.module) : fileURLToPath(new URL("../dist/src/security/secrets.js", import.meta.url));
const { maskSecrets } = await import(pathToFileURL(modulePath).href);

const fill = (unit, length) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
const URL_SECRET = "postgres://admin:s3cretpass@db.example.com/app";
/** One input per rule, the one that cost it most before it ran in linear time, or its prefix repeated. */
const FAMILIES = [
  ["aws-access-key-id: AKIA repeated", (n) => fill("AKIA", n)],
  ["aws-secret-access-key: the name repeated", (n) => fill("aws_secret_access_key", n)],
  ["github-token: bodies past the longest token", (n) => fill(`ghp_${"a".repeat(300)} `, n)],
  ["github-fine-grained-token: github_pat_ repeated", (n) => fill("github_pat_", n)],
  ["gitlab-token: a body of dashes", (n) => `glpat-${fill("-", n)}`],
  ["slack-token: a body of dashes", (n) => `xoxb-${fill("-", n)}`],
  ["slack-webhook: the prefix repeated", (n) => fill("https://hooks.slack.com/services/", n)],
  ["anthropic-api-key: sk-ant- repeated", (n) => fill("sk-ant-", n)],
  ["openai-api-key: sk- repeated", (n) => fill("sk-", n)],
  ["google-api-key: AIza- repeated", (n) => fill("AIza-", n)],
  ["stripe-key: sk_live_a repeated", (n) => fill("sk_live_a", n)],
  ["npm-token: npm_ repeated", (n) => fill("npm_", n)],
  ["sendgrid-key: first parts repeated", (n) => fill(`SG.${"a".repeat(22)}.`, n)],
  ["jwt: eyJ- repeated", (n) => fill("eyJ-", n)],
  ["url-credentials: a. repeated", (n) => fill("a.", n)],
  ["assigned-secret: password repeated", (n) => fill("password", n)],
  ["private-key: an endless label", (n) => `-----BEGIN ${fill("A ", n)}`],
];

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name.startsWith(".") ? [] : sourceFiles(path);
    return entry.isFile() && statSync(path).size < 1 << 20 ? [path] : [];
  });
}

function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** MB/s of the best of `runs`, and that run's milliseconds. */
function throughput(text, runs) {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const started = cpuMs();
    maskSecrets(text);
    best = Math.min(best, cpuMs() - started);
  }
  const megabytes = Buffer.byteLength(text) / 1e6;
  return { mbPerSecond: megabytes / (Math.max(best, 0.001) / 1000), ms: best };
}

const runs = Number(values.runs);
const source = sourceFiles(resolve(values.tree))
  .map((path) => readFileSync(path, "utf8"))
  .join("\n");
const length = Number(values["adversarial-kb"]) * 1024;
const rows = [[`ordinary source (${(Buffer.byteLength(source) / 1e6).toFixed(1)} MB under ${values.tree})`, throughput(source, runs)]];
for (const [name, family] of FAMILIES)
  rows.push([`${name} (${values["adversarial-kb"]} KB)`, throughput(`${family(length)}\n${URL_SECRET}`, runs)]);

console.log(`maskSecrets from ${modulePath}, best of ${runs} (CPU time)\n`);
console.log("| input | MB/s | ms |\n| --- | ---: | ---: |");
for (const [name, { mbPerSecond, ms }] of rows) console.log(`| ${name} | ${mbPerSecond.toFixed(1)} | ${ms.toFixed(1)} |`);
