import { execFileSync } from "node:child_process";
import { reply, startFakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { runCli } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/** What the recorded session's answer says, word for word: get_turn_range and retrieve_context must bring it back whole. */
export const RECORDED_ANSWER =
  "The invoice total is computed by computeInvoiceTotal in src/billing/invoice.ts, which sums the lines after discounts.";
export const RECORDED_PROMPT = "Where is the invoice total computed?";
export const COMMIT_SUBJECT = "Add invoice totals";

export const INVOICE_SOURCE = [
  "export function applyDiscount(amount: number, percent: number): number {",
  "  return amount - (amount * percent) / 100;",
  "}",
  "",
  "export function computeInvoiceTotal(lines: number[], percent: number): number {",
  "  return applyDiscount(lines.reduce((sum, line) => sum + line, 0), percent);",
  "}",
  "",
].join("\n");

const CHECKOUT_SOURCE = [
  'import { computeInvoiceTotal } from "./billing/invoice";',
  "",
  "export function checkout(lines: number[]): number {",
  "  return computeInvoiceTotal(lines, 10);",
  "}",
  "",
].join("\n");

/**
 * A git repository with a commit, indexed and holding one recorded session:
 * a real `sylk ask` against the fake Messages API, whose model reads a file
 * and answers.
 */
export async function createServedProject(): Promise<TempProject> {
  const project = createTempProject({ "src/billing/invoice.ts": INVOICE_SOURCE, "src/checkout.ts": CHECKOUT_SOURCE });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd: project.root, stdio: "pipe" });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", COMMIT_SUBJECT);
  const model = await startFakeAnthropicServer();
  try {
    model.enqueue(reply().toolUse("read_file", { path: "src/billing/invoice.ts" }, "toolu_read"), reply().text(RECORDED_ANSWER));
    const env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: model.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
    const asked = await runCli(["ask", "--yes", RECORDED_PROMPT], { cwd: project.root, env, timeoutMs: 90_000 });
    if (asked.code !== 0) throw new Error(`sylk ask failed (${asked.code}): ${asked.stderr}`);
  } finally {
    await model.close();
  }
  return project;
}
