import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropicServer, messageRequests, reply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";

const SCRIPT = fileURLToPath(new URL("../../scripts/bench-knowledge.mjs", import.meta.url));
const run = promisify(execFile);

let server: FakeAnthropicServer;
let dir: string;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
  dir = mkdtempSync(join(tmpdir(), "sylk-bench-observer-"));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Filler turns long enough that the conversation passes the observer's 1,000-token threshold once. */
const filler = (index: number) =>
  `Turn ${index} goes on about the weather, the traffic on the way home and what was on the radio this morning, at some length.`.repeat(2);

/** A conversation in LoCoMo's format: evidence at D1:3, D1:5 and D1:7, the rest filler. */
function writeConversation() {
  const said: Record<number, string> = {
    3: "I moved to Lisbon in 2020 for the new job.",
    5: "I started learning the violin last winter.",
    7: "My dog is a beagle and he loves the beach.",
  };
  const turns = Array.from({ length: 24 }, (_, index) => ({
    conv_id: "conv-t",
    session: 1,
    session_date: "1 May 2023",
    dia_id: `D1:${index + 1}`,
    turn_index: index,
    speaker: index % 2 === 0 ? "Ann" : "Bob",
    text: said[index + 1] ?? filler(index),
  }));
  const question = (id: string, text: string, answer: string, evidence: string) => ({
    conv_id: "conv-t",
    query_id: id,
    question: text,
    answer,
    category: 4,
    category_name: "single-hop",
    evidence: [evidence],
  });
  const queries = [
    question("q1", "Where did Ann move in 2020?", "Lisbon", "D1:3"),
    question("q2", "What instrument is Ann learning?", "The violin", "D1:5"),
    question("q3", "What is the name of Ann's dog?", "Rex", "D1:7"),
  ];
  writeFileSync(join(dir, "turns.jsonl"), `${turns.map((turn) => JSON.stringify(turn)).join("\n")}\n`);
  writeFileSync(join(dir, "queries.jsonl"), `${queries.map((query) => JSON.stringify(query)).join("\n")}\n`);
}

describe("bench-knowledge with a model observer", () => {
  it("judges a model's notes the same way: a verbatim answer-bearing sentence counts, a paraphrase or a sentence without the answer does not", async () => {
    writeConversation();
    // The notes the model writes, of known content: q1's evidence sentence verbatim; q2's as a paraphrase; q3's verbatim, but it
    // does not hold the answer ("Rex").
    const notes = [
      "- Ann: I moved to Lisbon in 2020 for the new job.",
      "- Ann plays violin, since last winter.",
      "- Ann: My dog is a beagle and he loves the beach.",
    ].join("\n");
    for (let index = 0; index < 4; index++) server.enqueue(reply().text(notes));
    const config = join(dir, "observer.sylkrc");
    writeFileSync(
      config,
      JSON.stringify({ model: { provider: "anthropic", name: "claude-observer-test", baseUrl: server.baseUrl, maxAttempts: 1 } }),
    );
    const out = join(dir, "result.json");
    await run(process.execPath, [SCRIPT, "--only", "coverage", "--locomo", dir, "--observer-config", config, "--json", out], {
      env: { ...process.env, ANTHROPIC_API_KEY: "test" },
      timeout: 60_000,
    });

    const result = JSON.parse(readFileSync(out, "utf8")).memoryCoverage;
    expect(result.observer).toBe("anthropic:claude-observer-test");
    // One observation of the conversation's first 1,000+ tokens, asked of the model with the turns it observed.
    const asked = messageRequests(server);
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(asked[0]?.body)).toContain("I moved to Lisbon in 2020");
    const covered = Object.fromEntries(result.questions.map((row: { query_id: string; memory: boolean }) => [row.query_id, row.memory]));
    expect(covered).toEqual({ q1: true, q2: false, q3: false });
    expect(result.bySplit.other.memory).toBeCloseTo(1 / 3, 10);
    // q3 has no answer-bearing evidence sentence at all: no context covers it.
    expect(result.bySplit.other.answerable).toBeCloseTo(2 / 3, 10);
  }, 90_000);
});
