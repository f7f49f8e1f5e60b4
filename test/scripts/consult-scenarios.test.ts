import { describe, expect, it } from "vitest";
import { DECOY_PATH, FACT_NAME, FACT_PATH, generateRepository, linesOf } from "../../scripts/lib/agents-repository.mjs";
import {
  afterConsultation,
  CACHE_READ,
  CACHE_WRITE,
  cachedInputCost,
  claimIn,
  consultationReport,
  explorationCalls,
  librarianShare,
  type MeasuredRun,
  mixture,
  type Outcome,
  READ_LINES,
  READS_PER_SEARCH,
  type Scenario,
  scenarioRuns,
  scenarioTable,
  scoreAnswer,
} from "../../scripts/lib/consult-scenarios.mjs";

const repository = generateRepository(1);
const { truth, decoy } = repository;

const readsOf = (calls: { name: string; input: Record<string, unknown> }[]) => calls.filter((call) => call.name === "read_file");
const coversFact = (input: Record<string, unknown>) =>
  input.path === truth.path && (input.offset as number) <= truth.start && (input.offset as number) + (input.limit as number) > truth.end;

describe("the consultation scenarios", () => {
  it("run the engineer alone and every policy against every answer, once per number of reads", () => {
    const runs = scenarioRuns([6, 12]);
    expect(runs).toHaveLength(14);
    for (const reads of [6, 12]) {
      const here = runs.filter((run) => run.reads === reads);
      expect(here.filter((run) => run.mode === "self")).toHaveLength(1);
      const consulted = here.filter((run): run is Extract<Scenario, { mode: "consult" }> => run.mode === "consult");
      expect(new Set(consulted.map((run) => `${run.policy}/${run.outcome}`)).size).toBe(6);
    }
  });

  it("explore with the number of ranged reads asked for, a search before each block, the fact's lines read once", () => {
    for (const reads of [1, 6, 12, 24]) {
      const calls = explorationCalls(repository, reads);
      const readCalls = readsOf(calls);
      expect(readCalls).toHaveLength(reads);
      expect(readCalls.every((call) => call.input.limit === READ_LINES)).toBe(true);
      expect(calls.filter((call) => call.name === "search_codebase")).toHaveLength(Math.ceil(reads / READS_PER_SEARCH));
      expect(calls[0]?.name).toBe("search_codebase");
      expect(readCalls.filter((call) => coversFact(call.input))).toHaveLength(1);
      expect(readCalls.some((call) => call.input.path === DECOY_PATH)).toBe(false);
      expect(new Set(readCalls.map((call) => call.input.path)).size).toBe(reads);
    }
    expect(() => explorationCalls(repository, 0)).toThrow(RangeError);
    expect(() => explorationCalls(repository, 40)).toThrow(RangeError);
  });

  it("generate the same repository for a seed, with the fact and the decoy at the lines they claim", () => {
    const again = generateRepository(1);
    expect([...again.files.entries()]).toEqual([...repository.files.entries()]);
    expect(repository.files.size).toBe(40);
    const factLines = linesOf(repository.files.get(FACT_PATH) ?? "", truth.start, 2);
    expect(factLines).toContain("failed invoice charge");
    expect(factLines).toContain(`export const ${FACT_NAME} = ${truth.value};`);
    expect(linesOf(repository.files.get(DECOY_PATH) ?? "", decoy.start, 2)).toContain(`export const ${decoy.symbol} = ${decoy.value};`);
    expect(decoy.value).not.toBe(truth.value);
    expect(generateRepository(2).truth.value).not.toBe(truth.value);
  });
});

describe("scoring the engineer's final answer", () => {
  it("counts an answer right only when it names the file, the constant and its value", () => {
    expect(scoreAnswer(`${FACT_NAME} is ${truth.value}: ${FACT_PATH}:${truth.start}-${truth.end}.`, truth).correct).toBe(true);
    expect(scoreAnswer(`${FACT_PATH} sets ${FACT_NAME} = ${truth.value}.`, truth).correct).toBe(true);
    expect(scoreAnswer(librarianShare("wrong", repository).answer, truth)).toEqual({
      file: false,
      symbol: false,
      value: false,
      correct: false,
    });
    expect(scoreAnswer(librarianShare("partial", repository).answer, truth)).toEqual({
      file: true,
      symbol: false,
      value: false,
      correct: false,
    });
    expect(scoreAnswer(`${FACT_NAME} is ${truth.value + 1}: ${FACT_PATH}`, truth).correct).toBe(false);
    expect(scoreAnswer(`${FACT_NAME} is ${truth.value}0: ${FACT_PATH}`, truth).correct).toBe(false);
    expect(scoreAnswer(`${FACT_NAME}_V2 is ${truth.value}: ${FACT_PATH}`, truth).correct).toBe(false);
  });

  it("reads a claim with its lines, a file named alone, or nothing", () => {
    expect(claimIn(librarianShare("correct", repository).answer)).toEqual(truth);
    expect(claimIn(librarianShare("wrong", repository).answer)).toEqual(decoy);
    expect(claimIn(librarianShare("partial", repository).answer)).toEqual({ path: FACT_PATH });
    expect(claimIn("I could not find it.")).toBeUndefined();
  });
});

describe("what the engineer does with the librarian's answer", () => {
  const exploration = explorationCalls(repository, 6);
  const followUp = (outcome: Outcome, policy: "trust" | "verify") =>
    afterConsultation(librarianShare(outcome, repository).answer, policy, repository, exploration);
  const right = (answer: string) => scoreAnswer(answer, truth).correct;

  it("trusting, takes a cited constant as it is: right when the librarian is, wrong when it is", () => {
    expect(followUp("correct", "trust").calls).toEqual([]);
    expect(right(followUp("correct", "trust").answer)).toBe(true);
    expect(followUp("wrong", "trust").calls).toEqual([]);
    expect(right(followUp("wrong", "trust").answer)).toBe(false);
  });

  it("verifying, reads the cited lines, and explores itself when they are about something else", () => {
    const correct = followUp("correct", "verify");
    expect(correct.calls).toHaveLength(1);
    expect(correct.calls[0]).toMatchObject({ name: "read_file", input: { path: FACT_PATH } });
    expect(coversFact(correct.calls[0]?.input ?? {})).toBe(true);
    expect(right(correct.answer)).toBe(true);
    const wrong = followUp("wrong", "verify");
    expect(wrong.calls[0]).toMatchObject({ name: "read_file", input: { path: DECOY_PATH } });
    expect(wrong.calls.slice(1)).toEqual(exploration);
    expect(right(wrong.answer)).toBe(true);
  });

  it("searches a file named without its constant under either policy, and explores when nothing is named", () => {
    for (const policy of ["trust", "verify"] as const) {
      const partial = followUp("partial", policy);
      expect(partial.calls.map((call) => call.name)).toEqual(["grep", "read_file"]);
      expect(coversFact(partial.calls[1]?.input ?? {})).toBe(true);
      expect(right(partial.answer)).toBe(true);
    }
    const nothing = afterConsultation("I found nothing.", "trust", repository, exploration);
    expect(nothing.calls).toEqual(exploration);
    expect(right(nothing.answer)).toBe(true);
  });
});

/** A measured run with the figures a test sets; the rest zero. */
function run(scenario: Scenario, figures: { correct: boolean; windowAdded: number; totalInput: number }): MeasuredRun {
  const { correct, windowAdded, totalInput } = figures;
  return {
    ...scenario,
    windowFirst: 1000,
    windowFinal: 1000 + windowAdded,
    windowAdded,
    engineerCalls: 1,
    librarianCalls: 1,
    engineerInput: 0,
    librarianInput: 0,
    totalInput,
    librarianFirst: 0,
    cachedInput: totalInput / 10,
    answer: "",
    score: { file: correct, symbol: correct, value: correct, correct },
  };
}

const measured: MeasuredRun[] = [
  run({ reads: 6, mode: "self" }, { correct: true, windowAdded: 4000, totalInput: 50_000 }),
  ...(["trust", "verify"] as const).flatMap((policy) => [
    run({ reads: 6, mode: "consult", policy, outcome: "correct" }, { correct: true, windowAdded: 1000, totalInput: 60_000 }),
    run({ reads: 6, mode: "consult", policy, outcome: "partial" }, { correct: true, windowAdded: 1500, totalInput: 70_000 }),
    run(
      { reads: 6, mode: "consult", policy, outcome: "wrong" },
      policy === "trust"
        ? { correct: false, windowAdded: 1000, totalInput: 60_000 }
        : { correct: true, windowAdded: 5000, totalInput: 110_000 },
    ),
  ]),
];

describe("a librarian that errs at known rates", () => {
  const outcomesOf = (policy: "trust" | "verify") =>
    Object.fromEntries(
      measured
        .filter((row) => row.mode === "consult" && row.policy === policy)
        .map((row) => [row.mode === "consult" ? row.outcome : "", row]),
    );

  it("weighs each answer's run by its rate", () => {
    const trusting = mixture(outcomesOf("trust"), { name: "60/20/20", rates: { correct: 0.6, partial: 0.2, wrong: 0.2 } });
    expect(trusting.accuracy).toBeCloseTo(0.8);
    expect(trusting.windowAdded).toBeCloseTo(0.6 * 1000 + 0.2 * 1500 + 0.2 * 1000);
    expect(trusting.totalInput).toBeCloseTo(0.6 * 60_000 + 0.2 * 70_000 + 0.2 * 60_000);
    expect(mixture(outcomesOf("verify"), { name: "60/20/20", rates: { correct: 0.6, partial: 0.2, wrong: 0.2 } }).accuracy).toBeCloseTo(1);
  });

  it("refuses rates that do not sum to one, or an answer with a rate and no run", () => {
    expect(() => mixture(outcomesOf("trust"), { name: "bad", rates: { correct: 0.5, wrong: 0.2 } })).toThrow(/sum to 0.7/);
    expect(() => mixture({}, { name: "none", rates: { correct: 1 } })).toThrow(/no run of the correct answer/);
  });

  it("tables the engineer alone against each policy and profile, a ratio below 1× where consulting costs more", () => {
    const table = scenarioTable(measured, [6]);
    expect(table).toHaveLength(1 + 2 * 3);
    expect(table[0]).toMatchObject({ engineer: "explores itself", accuracy: 1, windowRatio: 1, totalRatio: 1 });
    const trustingPoor = table.find((row) => row.engineer.includes("trusts") && row.librarian === "60/20/20");
    expect(trustingPoor?.accuracy).toBeCloseTo(0.8);
    expect(trustingPoor?.windowRatio).toBeCloseTo(4000 / 1100);
    expect(trustingPoor?.totalRatio).toBeCloseTo(50_000 / 62_000);
    const verifyingPoor = table.find((row) => row.engineer.includes("verifies") && row.librarian === "60/20/20");
    expect(verifyingPoor?.accuracy).toBeCloseTo(1);
    expect(verifyingPoor?.totalRatio).toBeLessThan(trustingPoor?.totalRatio ?? 0);
    expect(() => scenarioTable(measured, [12])).toThrow(/alone at 12 reads/);
    const report = consultationReport({ seed: 1, via: "consult_librarian", readCounts: [6], runs: measured, table });
    expect(report.split("\n").filter((line) => line.startsWith("| 6 |"))).toHaveLength(table.length + measured.length);
    expect(report).toContain("| 6 | consults, trusts the answer | 60/20/20 | 80 % | 1,100 | 3.64× | 62,000 | 0.81× | 6,200 | 0.81× |");
    expect(report).toContain("Runs discarded after a transport failure and run again: 0");
  });
});

describe("input cost with prompt caching", () => {
  const tools = [{ name: "read_file", description: "Reads a file.", input_schema: { type: "object" } }];
  const system = "## Your role: engineer";
  const first = { tools, system, messages: [{ role: "user", content: "Find it." }] };
  const second = { tools, system, messages: [...first.messages, { role: "assistant", content: "Looking." }] };
  const order = (body: typeof first) => JSON.stringify(body.tools) + JSON.stringify(body.system) + JSON.stringify(body.messages);

  it("writes the first request and reads what the next shares with it from the start", () => {
    const a = order(first).length;
    const b = order(second).length;
    let shared = 0;
    while (order(first)[shared] === order(second)[shared]) shared++;
    expect(cachedInputCost([first])).toBeCloseTo((CACHE_WRITE * a) / 4);
    expect(cachedInputCost([first, second])).toBeCloseTo((CACHE_WRITE * a + CACHE_READ * shared + CACHE_WRITE * (b - shared)) / 4);
    expect(cachedInputCost([first, second])).toBeLessThan(((a + b) / 4) * CACHE_WRITE);
  });

  it("writes everything after a change early in the request again: a tool loaded between two requests", () => {
    const loaded = { ...second, tools: [...tools, { name: "consult_librarian", description: "Asks.", input_schema: { type: "object" } }] };
    let shared = 0;
    while (order(first)[shared] === order(loaded)[shared]) shared++;
    expect(shared).toBeLessThan(JSON.stringify(tools).length);
    expect(cachedInputCost([first, loaded]) - cachedInputCost([first])).toBeCloseTo(
      (CACHE_READ * shared + CACHE_WRITE * (order(loaded).length - shared)) / 4,
    );
  });
});
