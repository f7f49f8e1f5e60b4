import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unsandboxed } from "../../../src/agent/sandbox/command-sandbox.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { mulberry32 } from "../../helpers/random-vectors.js";
import { drain, drainIndex } from "../../helpers/drain.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/**
 * Self-tuning retrieval's end-to-end scenario against the fake Messages API: what one
 * project's model does with the prefetched context teaches that project's
 * confidence threshold. Where every injected excerpt is wasted, it ends
 * higher than where excerpts are used and their absence makes the model
 * search.
 */
const REGIONS = ["norway", "chile", "kenya", "japan", "peru", "canada", "egypt", "spain", "nepal", "ghana", "chad", "fiji"];
/** Every module answers these about as well: how many are put in front of the model is the confidence threshold's choice. */
const PROMPTS = [
  "How are invoice totals rounded before the sales tax is added?",
  "Where is the half-even rounding of invoice totals done?",
  "Which function adds the sales tax to the invoice totals?",
];

let server: FakeAnthropicServer;
/**
 * The model of the project being taught. Replies are queued ahead of the
 * requests, so a reply left over from one project answers the next
 * project's first request: it must ask that project's model.
 */
let currentModel: (body: any) => unknown;
let projects: TempProject[];
let services: ProjectServices[];
/**
 * No prompt here runs a command, so no session needs the sandbox: without
 * one given, every session would probe bubblewrap (a child process run
 * synchronously), a fifth of the test's time.
 */
const noCommands = unsandboxed({ state: "off" });

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  projects = [];
  services = [];
});
afterEach(async () => {
  for (const opened of services) await opened.close();
  await server.close();
  for (const project of projects) project.cleanup();
});

/** A billing module per region, all alike but for the region. */
async function billingProject(): Promise<{ services: ProjectServices; env: NodeJS.ProcessEnv }> {
  const project = createTempProject();
  projects.push(project);
  REGIONS.forEach((region, index) => {
    project.write(
      `src/billing/${region}.ts`,
      [
        `// Invoice totals for ${region}: rounded half-even, then the ${region} sales tax is added.`,
        `export function invoiceTotal${index}(amounts: number[]): number {`,
        `  const subtotal = amounts.reduce((sum, amount) => sum + amount, 0);`,
        `  return roundHalfEven(subtotal * (1 + TAX_${region.toUpperCase()}));`,
        `}`,
        `const TAX_${region.toUpperCase()} = 0.${10 + index};`,
        `function roundHalfEven(value: number): number { return Math.round(value * 100) / 100; }`,
        "",
      ].join("\n"),
    );
  });
  const env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_LEARNING_ENABLED: "true",
  };
  const opened = openProject({ root: project.root, env });
  services.push(opened);
  await drainIndex(opened);
  return { services: opened, env };
}

const lastUserText = (body: any): string => {
  const last = body.messages.at(-1);
  return typeof last.content === "string"
    ? last.content
    : last.content.map((block: any) => block.text ?? JSON.stringify(block.content ?? "")).join("\n");
};
const injectedSources = (text: string) => [...text.matchAll(/\[AUTO-RETRIEVED: (\S+?):\d+-\d+ \|/g)].map((match) => match[1] as string);
const relatedPaths = (text: string) => [...text.matchAll(/\[RELATED: (\S+?)(?::\d+-\d+)? - /g)].map((match) => match[1] as string);

/**
 * Cites every excerpt and reads every hint it was given; with fewer than two
 * of them it searches first. Its first prompt's answer needs none of it: one
 * unused injection must not stop the project getting context (its prompts
 * held back after it record no candidate they needed, since this model's
 * search is a grep that names no file).
 */
function usingModel() {
  let prompts = 0;
  return (body: any) => {
    if (body.messages.length === 1) prompts++;
    if (prompts === 1) return reply().text("Totals are rounded before tax.");
    const text = lastUserText(body);
    if (body.messages.length > 1) return reply().text(`Answered from ${injectedSources(JSON.stringify(body.messages[0])).join(", ")}.`);
    const excerpts = injectedSources(text);
    const hints = relatedPaths(text);
    const calls = hints.map((path) => ["read_file", { path }] as const);
    if (excerpts.length + hints.length < 2) calls.push(["grep", { pattern: "roundHalfEven" }] as never);
    if (calls.length === 0) return reply().text(`The totals are computed in ${excerpts.join(" and ")}.`);
    let builder = reply();
    for (const [name, input] of calls) builder = builder.toolUse(name, input);
    return builder;
  };
}

/** Never looks at what was put in front of it, and never searches. */
function wastingModel() {
  return () => reply().text("Totals are rounded before tax.");
}

/** The tokens of what prefetch put into a prompt: its excerpts and hints as the model reads them (about four characters a token). */
const injectedTokens = (text: string) =>
  Math.ceil(
    [...text.matchAll(/\[AUTO-RETRIEVED: [^\]]*\]\n```[^\n]*\n[\s\S]*?\n```|\[RELATED: [^\]]*\]/g)].reduce(
      (sum, match) => sum + match[0].length,
      0,
    ) / 4,
  );

interface Learned {
  /** Per prompt, the injected tokens the model was sent and the searches it made. */
  records: Array<{ tokens: number; searches: number }>;
  /** `thresholds.confidence`'s posterior mean at the end. */
  confidence: number;
  /** Prefetched items used, as the episodes recorded them. */
  used: number;
}

/** `prompts` prompts, a conversation each, in a new billing project whose model is `model`: what it was sent, and what was learned. */
async function promptByPrompt(model: (body: any) => unknown, seed: number, prompts: number): Promise<Learned> {
  const { services: opened, env } = await billingProject();
  const random = mulberry32(seed);
  const records: Array<{ tokens: number; searches: number }> = [];
  currentModel = (body: any) => {
    const record = records.at(-1) as { tokens: number; searches: number };
    if (body.messages.length === 1) record.tokens += injectedTokens(lastUserText(body));
    const answer = model(body);
    record.searches += JSON.stringify(answer).split('"grep"').length - 1;
    return answer;
  };
  for (let prompt = 0; prompt < prompts; prompt++) {
    records.push({ tokens: 0, searches: 0 });
    while (server.pending() < 3) server.enqueue((body) => currentModel(body) as never);
    const session = openAgentSession({ services: opened, env, permissionMode: "accept-edits", random, sandbox: noCommands });
    await drain(session.run(PROMPTS[prompt % PROMPTS.length] as string, new AbortController().signal));
    session.close();
  }
  const session = openAgentSession({ services: opened, env, sandbox: noCommands });
  const summary = session.learning();
  session.close();
  expect(summary?.observations).toBe(prompts);
  // The log holds every line below its compaction size.
  const used = readFileSync(opened.paths.observationLog, "utf8")
    .trim()
    .split("\n")
    .reduce((total, line) => total + (JSON.parse(line) as { usedKeys: string[] }).usedKeys.length, 0);
  const confidence = summary?.parameters.find((parameter) => parameter.name === "thresholds.confidence")?.mean as number;
  return { records, confidence, used };
}

const sum = (records: Array<{ tokens: number; searches: number }>, key: "tokens" | "searches") =>
  records.reduce((total, record) => total + record[key], 0);

const tokens = (learned: Learned, from: number, to: number) => sum(learned.records.slice(from - 1, to), "tokens");
const searches = (learned: Learned, from: number, to: number) => sum(learned.records.slice(from - 1, to), "searches");

describe("self-tuning retrieval, end to end", () => {
  // Two sampler seeds: on 13 the first prompts of the wasted project once got nothing at all, so there was nothing to cut.
  it.each([7, 13])(
    "stops injecting where excerpts are never used, keeps injecting where they are without more searches, and learns the confidence floor from both (sampler seed %i)",
    async (seed) => {
      // 60 prompts a project: prompts 1-30 are the injection's case, and the confidence floor is read after all 60.
      const wasted = await promptByPrompt(wastingModel(), seed, 60);
      const used = await promptByPrompt(usingModel(), seed, 60);
      // Where nothing injected is used: prompts 21-30 get at most a fifth of the tokens prompts 1-10 got.
      expect(tokens(wasted, 1, 10)).toBeGreaterThan(0);
      expect(tokens(wasted, 21, 30)).toBeLessThanOrEqual(0.2 * tokens(wasted, 1, 10));
      // Where it is used: at least half as much goes in at the end as at the start, and the model searches no more.
      expect(tokens(used, 1, 10)).toBeGreaterThan(0);
      expect(tokens(used, 21, 30)).toBeGreaterThanOrEqual(0.5 * tokens(used, 1, 10));
      expect(searches(used, 21, 30)).toBeLessThanOrEqual(searches(used, 1, 10));
      expect(wasted.used).toBe(0);
      expect(used.used).toBeGreaterThan(60);
      // From the prior's 0.85: well up where excerpts are wasted, and clearly below that where their absence
      // costs searches. Seeds 7-13 of the sampler: 0.934-0.939 against 0.759-0.807, at least 0.13 apart.
      expect(wasted.confidence).toBeGreaterThan(0.9);
      expect(wasted.confidence - used.confidence).toBeGreaterThan(0.05);
    },
    240_000,
  );
});
