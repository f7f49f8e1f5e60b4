import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { searchProject, type SearchResponseJson } from "../../src/app/project-search.js";
import type { ContentEntry } from "../../src/store/content-types.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * `--scope all` ranks code and history together. Each store's scores are
 * sums over its own signals of each signal's share, rescaled within that
 * store's candidates, so a hit that two signals found can score up to twice
 * one that a single signal found, whatever its rank: the two lists meet by
 * rank, never by score.
 */

let project: TempProject;
let services: ProjectServices;
/** A history entry the vector signal cannot find: stored, its vector not yet written (as after a failing embedder). */
let unembedded: ContentEntry;
/** A history entry both history signals find. */
let embedded: ContentEntry;

beforeAll(async () => {
  project = createTempProject({
    "src/lexer.ts": "// parse the token stream\nexport function parseToken(token: string) {\n  return token.trim();\n}\n",
    "src/reader.ts": "// read then parse each token\nexport function readTokens(text: string) {\n  return text.split(' ');\n}\n",
    "src/printer.ts": "// print a token after the parse\nexport function printToken(token: string) {\n  return `<${token}>`;\n}\n",
    "src/tally.ts": "// count each token of the ledger rows\nexport const tallyRows = (rows: number[]) => rows.length;\n",
  });
  services = openProject({ root: project.root, env: project.env });
  const run = services.indexer.run();
  for (let step = await run.next(); !step.done; step = await run.next());
  const turn = { sessionId: "s-1", agentId: "engineer-1", agentType: "engineer", turnNumber: 1 };
  unembedded = await services.contentStore.indexContent({
    ...turn,
    contentType: "agent_response",
    content: "The lexer drops a quoted flux capacitor.",
  });
  embedded = await services.contentStore.indexContent({
    ...turn,
    turnNumber: 2,
    contentType: "user_prompt",
    content: "Why does the warp coil hum at night?",
  });
  services.vectors.deleteEntries(services.entries.getByIds([unembedded.id]).map((stored) => stored.doc));
}, 60_000);

afterAll(async () => {
  await services?.close();
  project.cleanup();
});

const kinds = (response: SearchResponseJson) =>
  response.results.map((result) => (result.entry ? `history:${result.entry.id}` : `code:${result.path}`));

describe("searching code and history together", () => {
  it("puts history's best hit second, after code's best, though one signal found it and code's next hits, found by two, score higher", async () => {
    const code = await searchProject(services, "parse token flux capacitor", { k: 10, scope: "code" });
    const history = await searchProject(services, "parse token flux capacitor", { k: 10, scope: "history" });
    // The situation: code's first three hits outscore history's best, which only full text found.
    expect(code.results.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(code.results.at(-1)?.signals ?? {}).sort()).toEqual(["fulltext", "vector"]);
    expect(history.results[0]?.entry?.id).toBe(unembedded.id);
    expect(Object.keys(history.results[0]?.signals ?? {})).toEqual(["fulltext"]);
    expect(history.results[0]!.score).toBeLessThan(code.results[2]!.score);

    const all = await searchProject(services, "parse token flux capacitor", { k: 10, scope: "all" });
    expect(kinds(all).slice(0, 3)).toEqual([kinds(code)[0], `history:${unembedded.id}`, kinds(code)[1]]);
  });

  it("puts code's best first when its one signal scores below history's two", async () => {
    const code = await searchProject(services, "parse token warp coil", { k: 10, scope: "code", signals: ["fulltext"] });
    const history = await searchProject(services, "parse token warp coil", { k: 10, scope: "history" });
    expect(history.results[0]?.entry?.id).toBe(embedded.id);
    expect(history.results[0]!.score).toBeGreaterThan(code.results[0]!.score);

    const all = await searchProject(services, "parse token warp coil", { k: 10, scope: "all", signals: ["fulltext"] });
    expect(kinds(all).slice(0, 3)).toEqual([kinds(code)[0], `history:${embedded.id}`, kinds(code)[1]]);
  });

  it("scores the merged list so that it reads best first, and keeps each hit's own signals", async () => {
    const all = await searchProject(services, "parse token flux capacitor", { k: 3, scope: "all" });
    expect(all.results).toHaveLength(3);
    const scores = all.results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(all.results[1]?.signals).toEqual({ fulltext: expect.objectContaining({ rank: 1 }) });
    // By rank, with search.rrfK's constant: the first of each list scores 1 / (k + 1).
    expect(scores[0]).toBeCloseTo(1 / 61, 10);
    const steeper = await searchProject(services, "parse token flux capacitor", { k: 3, scope: "all", rrfK: 1 });
    expect(kinds(steeper)).toEqual(kinds(all));
    expect(steeper.results.map((result) => result.score)).toEqual([1 / 2, 1 / 2, 1 / 3]);
  });

  it("is what sylk search --scope all prints", async () => {
    const run = await runCli(["search", "--scope", "all", "--json", "parse token flux capacitor"], { cwd: project.root, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as SearchResponseJson;
    expect(kinds(printed)).toEqual(kinds(await searchProject(services, "parse token flux capacitor", { k: 10, scope: "all" })));
    expect(kinds(printed)[1]).toBe(`history:${unembedded.id}`);
  });
});
