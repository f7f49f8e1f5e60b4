import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { IndexNotice } from "../../src/app/background-indexing.js";
import { openInteractiveSession, type InteractiveSession } from "../../src/app/interactive-session.js";
import { openProject } from "../../src/app/project-services.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { FullTextRepository } from "../../src/store/full-text-repository.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { withProjectDatabase } from "../helpers/project-database.js";

/** The interactive session with a damaged full-text snapshot: searches stay whole, and the damage is rebuilt and said. */
let project: TempProject;
let session: InteractiveSession | undefined;
let notices: IndexNotice[];
const REBUILT =
  "Rebuilt the code full-text index from its stored terms: its snapshot was damaged (postings bucket 0: its checksum does not match).";

beforeEach(async () => {
  project = createTempProject({
    "src/billing.ts": "export function computeInvoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
  });
  // Indexed once, its snapshot saved at the end, then a byte of its postings flipped.
  const first = await started();
  await first.shutdown();
  const db = new Database(resolveProjectPaths(project.root, project.env).database);
  try {
    const data = Uint8Array.from(
      db.prepare("SELECT data FROM fts_postings WHERE index_name = 'code' AND bucket = 0").pluck().get() as Buffer,
    );
    data[data.length - 1] = (data[data.length - 1] as number) ^ 0x5a;
    db.prepare("UPDATE fts_postings SET data = ? WHERE index_name = 'code' AND bucket = 0").run(data);
  } finally {
    db.close();
  }
}, 60_000);
afterEach(async () => {
  await session?.shutdown();
  session = undefined;
  project.cleanup();
});

async function started(): Promise<InteractiveSession> {
  const opened = openInteractiveSession({ root: project.root, env: project.env });
  notices = [];
  opened.indexing.onNotice((notice) => notices.push(notice));
  opened.services.consent.recordIndexConsent(true, "test");
  opened.indexing.start();
  await opened.indexing.catchUp();
  return opened;
}

async function snapshotDamage(): Promise<unknown> {
  const services = openProject({ root: project.root, env: project.env });
  try {
    return withProjectDatabase(services.paths, (db) => new FullTextRepository(db).verifySnapshot("code"));
  } finally {
    await services.close();
  }
}

describe("an interactive session with a damaged full-text snapshot", () => {
  it("searches from both signals, the snapshot rebuilt by the load, and says so at its next index run", async () => {
    session = await started();
    const outcome = await session.services.codeSearcher.search("computeInvoiceTotal");
    expect(outcome.degraded).toEqual([]);
    expect(outcome.hits[0]).toMatchObject({ path: "src/billing.ts", signals: { fulltext: { rank: 1 } } });
    expect(await snapshotDamage()).toBeUndefined();

    session.indexing.refreshNow();
    await session.indexing.catchUp();
    expect(notices).toContainEqual({ tone: "warning", text: REBUILT });
  });

  it("rebuilds damage `sylk status` noted at its start-up run, with nothing changed, and says so", async () => {
    const status = openProject({ root: project.root, env: project.env });
    expect(status.codeFullText.checkSnapshot()).toEqual({ part: "postings bucket 0", problem: "its checksum does not match" });
    await status.close();

    session = await started();
    expect(notices).toContainEqual({ tone: "warning", text: REBUILT });
    expect(await snapshotDamage()).toBeUndefined();
  });
});
