import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openInteractiveSession, type InteractiveSession } from "../../src/app/interactive-session.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** An interactive session loads the vector hot tier on another thread, then searches it instead of sqlite-vec. */
let project: TempProject | undefined;
let session: InteractiveSession | undefined;
afterEach(async () => {
  await session?.shutdown();
  session = undefined;
  project?.cleanup();
  project = undefined;
});

describe("the vector hot tier of an interactive session", () => {
  it("loads off the screen's thread, answers as the store did, and keeps up with what is indexed after", async () => {
    project = createTempProject({
      "src/billing.ts": "export function computeInvoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
      "src/shipping.ts": "export function estimateShippingCost(weight: number) {\n  return weight * 4.5;\n}\n",
      "src/users.ts": "export function formatUserName(first: string, last: string) {\n  return `${first} ${last}`;\n}\n",
    });
    session = openInteractiveSession({ root: project.root, env: project.env });
    session.services.consent.recordIndexConsent(true, "test");
    session.indexing.start();
    await session.indexing.catchUp();
    const signals = ["vector"] as const;
    const fromStore = await session.services.codeSearcher.search("invoice total of the lines", { signals });
    expect(session.services.codeVectorIndex.isWarm).toBe(false);

    await session.warmVectorsInBackground();
    expect(session.services.codeVectorIndex.isWarm).toBe(true);
    const fromTier = await session.services.codeSearcher.search("invoice total of the lines", { signals });
    expect(fromTier.hits.map((hit) => hit.path)).toEqual(fromStore.hits.map((hit) => hit.path));
    expect(fromTier.hits[0]?.path).toBe("src/billing.ts");

    writeFileSync(join(project.root, "src/refunds.ts"), "export function issueRefundVoucher(amount: number) {\n  return { amount };\n}\n");
    await session.indexing.catchUp();
    const added = await session.services.codeSearcher.search("issue refund voucher", { signals });
    expect(session.services.codeVectorIndex.isWarm).toBe(true);
    expect(added.hits[0]?.path).toBe("src/refunds.ts");
  });
});
