// Reads the learning reference's JSONL (scripts/bench-handoff-reference.mjs) into the figures docs/BENCHMARKS.md
// reports under "The learning reference". Replay rows: per level, each seed's first-instance false firing and first
// crossings (median / p90), and (detail) the slow first crossings by session index and the learned parameters' errors
// against the truth. Live rows: one table row per seed.
import { percentile } from "./handoff-outcomes.mjs";

/** A number as the analysis prints it (Python's spelling of the infinities, so its figures read as before). */
const show = (x) => (x === Number.POSITIVE_INFINITY ? "inf" : Number.isNaN(x) ? "nan" : String(x));
const sum = (values) => values.reduce((a, b) => a + b, 0);
const meanOf = (values) => sum(values) / values.length;

/** The first decision whose gate reaches `level`, or undefined. */
const firingOf = (row, gate, level) => {
  const t = row[gate].findIndex((p) => p !== null && p >= level);
  return t < 0 ? undefined : t;
};

/**
 * A replayed session's first instance at `level`: "early" (fired below the onset, or at all in a session that never
 * degrades), its delay in turns from the crossing, Infinity when missed (no firing in the 10 turns the session went
 * on), or undefined (no crossing, or too few turns after it to call it missed).
 */
export function firstOutcome(row, gate, level) {
  const fired = firingOf(row, gate, level);
  const onset = row.degrades ? row.onset : Number.POSITIVE_INFINITY;
  if (fired !== undefined && row.xs[fired] < onset) return "early";
  const cross = row.cross;
  if (cross === null || cross < 0) return undefined;
  if (fired !== undefined) return fired - cross;
  return row.n - cross >= 10 ? Number.POSITIVE_INFINITY : undefined;
}

const bySeed = (rows) => {
  const seeds = new Map();
  for (const row of [...rows].sort((a, b) => a.seed - b.seed)) {
    if (!seeds.has(row.seed)) seeds.set(row.seed, []);
    seeds.get(row.seed).push(row);
  }
  return seeds;
};

/** One line per level: pooled and per-seed first-instance false firing, first median / p90, never-degrading fired. */
export function levelLines(rows, levels, gate = "gates") {
  const seeds = bySeed(rows);
  return levels.map((level) => {
    let falseTotal = 0;
    const parts = [];
    for (const [seed, rs] of seeds) {
      const outcomes = rs.map((r) => firstOutcome(r, gate, level));
      const early = outcomes.filter((o) => o === "early").length;
      const first = outcomes.filter((o) => typeof o === "number");
      const finite = first.filter(Number.isFinite);
      const never = rs.filter((r) => !r.degrades);
      const neverFired = never.filter((r) => firingOf(r, gate, level) !== undefined).length;
      falseTotal += early;
      parts.push(
        `${seed}: first ${show(percentile(finite, 50))}/${show(percentile(first, 90))} (n ${first.length}, missed ${first.length - finite.length}) ` +
          `false ${((early / rs.length) * 100).toFixed(2)}% never-fired ${neverFired}/${never.length}`,
      );
    }
    return `level ${level}: pooled false ${((falseTotal / rows.length) * 100).toFixed(2)}%  ${parts.join(" | ")}`;
  });
}

const INDEX_BINS = [
  [0, 30],
  [30, 100],
  [100, 200],
  [200, 300],
];

/** Per seed and estimator, first crossings over 6 turns (missed included) by session index, at `level`. */
function slowLines(seed, rs, level) {
  return ["gates", "known"].map((gate) => {
    const delays = (within) =>
      rs
        .filter(within)
        .map((r) => firstOutcome(r, gate, level))
        .filter((o) => typeof o === "number");
    const bins = INDEX_BINS.map(([low, high]) => {
      const d = delays((r) => low <= r.index && r.index < high);
      return `${d.filter((x) => x > 6).length}/${d.length}`;
    });
    const all = delays(() => true);
    return `${seed} ${gate} slow(>6) by index 0-30,30-100,100-200,200-300: ${bins.join(" ")} total ${all.filter((x) => x > 6).length} / ${all.length}`;
  });
}

/** Per seed, the learned posterior means' errors against the truth, by how many of the pair's sessions it had seen. */
function learnedLines(seed, rs) {
  const seen = new Map();
  const bins = { "1-2": [], "3-9": [], "10+": [] };
  for (const r of rs) {
    const count = seen.get(r.key) ?? 0;
    seen.set(r.key, count + 1);
    if (count === 0) continue; // the pair's first session: its summary is of unnormalised prior weights
    bins[count < 3 ? "1-2" : count < 10 ? "3-9" : "10+"].push(r);
  }
  return Object.entries(bins)
    .filter(([, s]) => s.length > 0)
    .map(([bin, s]) => {
      const m = (f) => meanOf(s.map(f));
      return (
        `${seed} seen ${bin} n ${s.length} peak err ${m((r) => Math.abs(r.post.peak - r.peak)).toFixed(4)} ` +
        `log onset err ${m((r) => Math.abs(Math.log(r.post.onset / r.meanOnset))).toFixed(3)} ` +
        `log rate err ${m((r) => Math.abs(Math.log(r.post.rate / r.rate))).toFixed(3)} ` +
        `noise err ${m((r) => Math.abs(r.post.noise - r.noise)).toFixed(4)} sd ${m((r) => r.post.sd).toFixed(3)} never ${m((r) => r.post.never).toFixed(3)}`
      );
    });
}

/** The detail at one level, per seed: slow first crossings by index (learning and full knowledge), learned errors. */
export function detailLines(rows, level) {
  return [...bySeed(rows)].flatMap(([seed, rs]) => [...slowLines(seed, rs, level), ...learnedLines(seed, rs)]);
}

/** Live rows: one markdown table row per seed, then the pooled whole-session false firing. */
export function liveLines(rows) {
  const sorted = [...rows].sort((a, b) => a.seed - b.seed);
  const lines = sorted.map(
    (r) =>
      `| ${r.seed} | ${(r.falseFiringSessions * 100).toFixed(2)} % | ${r.firstMedian}/${r.firstP90} (${r.firstCount}, ${r.firstMissed}) | ` +
      `${r.laterMedian}/${r.laterP90} (${r.laterCount}, ${r.laterMissed}) | ${(r.neverDegradedFired * 100).toFixed(1)} % | ` +
      `${r.earlyPerSession.toFixed(3)} | ${r.earlyAtMedian.toFixed(3)} | ${r.handoffsPerSession.toFixed(2)} | ${(r.ofOracle * 100).toFixed(1)} % |`,
  );
  lines.push(`pooled false ${(meanOf(sorted.map((r) => r.falseFiringSessions)) * 100).toFixed(2)} %`);
  return lines;
}

/** The analysis of one run's rows, replay or live as the rows are. */
export function analyse(rows, { levels, detail }) {
  if (rows.length === 0) return [];
  if (!("gates" in rows[0])) return liveLines(rows);
  const lines = [...levelLines(rows, levels, "gates"), "full knowledge on the same paths:", ...levelLines(rows, levels, "known")];
  if (detail !== undefined) lines.push(`at ${detail}:`, ...detailLines(rows, detail));
  return lines;
}
