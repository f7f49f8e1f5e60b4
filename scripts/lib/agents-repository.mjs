// The generated repository bench-agents.mjs explores: seeded TypeScript modules, one nested file holding
// the fact (a constant), and a decoy of the same shape that answers a different question. Plain data: the
// runs write it to a temp project, and the consultation scenarios read it to script and score.

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "invoice",
  "ledger",
  "account",
  "payment",
  "refund",
  "customer",
  "session",
  "token",
  "report",
  "export",
  "schedule",
  "audit",
  "quota",
  "tenant",
  "webhook",
  "currency",
];
const DIRS = ["src/api", "src/api/handlers", "src/billing", "src/billing/internal", "src/core", "src/core/util", "src/reports", "src/auth"];

export const FILES = 40;
export const FACT_PATH = "src/billing/internal/retry/limits.ts";
export const FACT_NAME = "MAX_INVOICE_RETRIES";
/** Words only the fact's comment has: what a reader checks a cited range against. */
export const FACT_TOPIC = "failed invoice charge";
export const DECOY_PATH = "src/billing/webhooks/delivery-retry.ts";
export const DECOY_NAME = "MAX_WEBHOOK_RETRIES";
/** Lines of header before a module's first function, and lines per function. */
const HEADER_LINES = 3;
const FUNCTION_LINES = 7;
/** Functions in a module of the consultation repository: about 143 lines, 10 kB, a size real modules have. */
export const MODULE_FUNCTIONS = 20;
/** The fact's comment line (its constant is the next): the start of the twelfth function. */
export const FACT_LINE = HEADER_LINES + FUNCTION_LINES * 11 + 1;
const DECOY_LINE = HEADER_LINES + FUNCTION_LINES * 6 + 1;

/** A module of `functions` seeded arithmetic helpers, 7 lines each after a 3-line header. */
export function moduleText(random, index, functions = 5) {
  const pick = () => WORDS[Math.floor(random() * WORDS.length)];
  const lines = [`// Module ${index}: ${pick()} and ${pick()} handling.`, `import { assert } from "../util/assert.js";`, ""];
  for (let fn = 0; fn < functions; fn++) {
    const name = `${pick()}${pick()[0].toUpperCase()}${pick().slice(1)}${index}_${fn}`;
    lines.push(`export function ${name}(input: { id: string; amount: number }): number {`);
    lines.push(`  assert(input.id.length > 0, "${name}: empty id");`);
    lines.push(`  const scaled = input.amount * ${Math.floor(random() * 900) + 100} / ${Math.floor(random() * 90) + 10};`);
    lines.push(`  if (scaled > ${Math.floor(random() * 100_000)}) return Math.floor(scaled / ${Math.floor(random() * 9) + 2});`);
    lines.push(`  return Math.round(scaled) % ${Math.floor(random() * 1000) + 7};`);
    lines.push("}", "");
  }
  return `${lines.join("\n")}\n`;
}

/** A module with a documented constant spliced in at `line` (its comment there, the constant on the next line). */
function moduleWithConstant(random, index, line, comment, name, value) {
  const lines = moduleText(random, index, MODULE_FUNCTIONS).split("\n");
  lines.splice(line - 1, 0, `/** ${comment} */`, `export const ${name} = ${value};`);
  return lines.join("\n");
}

/**
 * The repository of a seed: `files` (path → text, FILES of them: the fact's, the decoy's and the
 * rest), the `truth` (path, symbol, value and the lines of its comment and constant), and `order`,
 * a seeded order of the other files from which the explorer's reads are taken.
 */
export function generateRepository(seed) {
  const random = mulberry32(seed);
  const value = Math.floor(random() * 90) + 10;
  const decoyValue = value + 1 + Math.floor(random() * 8);
  const files = new Map();
  for (let index = 0; files.size < FILES - 2; index++)
    files.set(`${DIRS[index % DIRS.length]}/${WORDS[index % WORDS.length]}-${index}.ts`, moduleText(random, index, MODULE_FUNCTIONS));
  const factComment = `How often a ${FACT_TOPIC} is retried before the invoice is marked uncollectable.`;
  files.set(FACT_PATH, moduleWithConstant(random, 99, FACT_LINE, factComment, FACT_NAME, value));
  const decoyComment = "How often a payment webhook delivery is retried before its endpoint is disabled.";
  files.set(DECOY_PATH, moduleWithConstant(random, 98, DECOY_LINE, decoyComment, DECOY_NAME, decoyValue));
  const order = [...files.keys()].filter((path) => path !== FACT_PATH && path !== DECOY_PATH);
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other], order[index]];
  }
  // Where each read of an ordinary file starts (a function's first line), and where among the reads the fact's comes.
  const starts = order.map(() => HEADER_LINES + 1 + FUNCTION_LINES * Math.floor(random() * (MODULE_FUNCTIONS - 4)));
  const factPosition = random();
  return {
    files,
    order,
    starts,
    factPosition,
    truth: { path: FACT_PATH, symbol: FACT_NAME, value, start: FACT_LINE, end: FACT_LINE + 1 },
    decoy: { path: DECOY_PATH, symbol: DECOY_NAME, value: decoyValue, start: DECOY_LINE, end: DECOY_LINE + 1 },
  };
}

/** Lines `offset` to `offset + limit - 1` (1-based) of a text. */
export function linesOf(text, offset, limit) {
  return text
    .split("\n")
    .slice(offset - 1, offset - 1 + limit)
    .join("\n");
}
