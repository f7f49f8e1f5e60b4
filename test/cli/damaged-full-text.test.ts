import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchResponseJson } from "../../src/app/project-search.js";
import type { StatusJson } from "../../src/cli/commands/status-command.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { postingsChecksum } from "../../src/store/snapshot-checksum.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * A damaged full-text snapshot in a real indexed project: `sylk search`
 * answers from vectors and says why, `sylk status` names the damage, and
 * the next `sylk index` rebuilds the full-text index from the stored terms.
 */

const INVOICE = "src/billing/invoice.ts";
const FILES = {
  [INVOICE]:
    "// Renders an invoice for an order as a PDF.\nexport function renderInvoice(order: { total: number }) {\n  return order.total;\n}\n",
  "src/auth/token.ts":
    "// Validates JSON web tokens.\nexport function validateToken(token: string) {\n  return token.split('.').length === 3;\n}\n",
  "docs/setup.md": "# Setup\n\nInstall the dependencies, then run the server.\n",
};

let project: TempProject;
let database: string;
const cli = (args: string[]) => runCli(args, { cwd: project.root, env: project.env });

beforeAll(async () => {
  project = createTempProject(FILES);
  const run = await cli(["index", "--yes"]);
  expect(run.code, run.stderr).toBe(0);
  database = resolveProjectPaths(project.root, project.env).database;
}, 60_000);
afterAll(() => project.cleanup());

function withDatabase(work: (db: Database.Database) => void): void {
  const db = new Database(database);
  try {
    work(db);
  } finally {
    db.close();
  }
}

/** Every postings row of the code index, changed by `change`; `checksum` keeps the row's checksum matching (only the decoder can tell). */
function changePostings(db: Database.Database, change: (data: Uint8Array) => Uint8Array, options: { checksum?: boolean } = {}): void {
  const rows = db.prepare("SELECT bucket, data FROM fts_postings WHERE index_name = 'code'").all() as Array<{
    bucket: number;
    data: Buffer;
  }>;
  for (const { bucket, data } of rows) {
    const changed = change(Uint8Array.from(data));
    db.prepare("UPDATE fts_postings SET data = ? WHERE index_name = 'code' AND bucket = ?").run(changed, bucket);
    if (options.checksum)
      db.prepare("UPDATE fts_postings SET checksum = ? WHERE index_name = 'code' AND bucket = ?").run(
        postingsChecksum(bucket, changed),
        bucket,
      );
  }
}

function changeDocuments(db: Database.Database, change: (data: Uint8Array) => Uint8Array): void {
  const blob = db.prepare("SELECT documents FROM fts_documents WHERE index_name = 'code'").pluck().get() as Buffer;
  db.prepare("UPDATE fts_documents SET documents = ? WHERE index_name = 'code'").run(change(Uint8Array.from(blob)));
}

const flip = (at: (length: number) => number) => (data: Uint8Array) => {
  data[at(data.length)] = (data[at(data.length)] as number) ^ 0x5a;
  return data;
};

interface Damage {
  name: string;
  damage: (db: Database.Database) => void;
  /** What a search that reads the query's rows finds; */
  searchFinds: RegExp;
  /** and what a read of the whole snapshot finds (`sylk status`, a load), when it differs. */
  readFinds?: RegExp;
}

const DAMAGE: Damage[] = [
  {
    name: "a byte of the documents flipped",
    damage: (db) =>
      changeDocuments(
        db,
        flip((length) => length - 2),
      ),
    searchFinds: /^documents: its checksum does not match$/,
  },
  {
    name: "the documents cut short",
    damage: (db) => changeDocuments(db, (data) => data.subarray(0, data.length - 3)),
    searchFinds: /^documents: its checksum does not match$/,
  },
  {
    name: "a byte of the postings flipped",
    damage: (db) =>
      changePostings(
        db,
        flip((length) => length - 3),
      ),
    searchFinds: /^postings bucket \d+: its checksum does not match$/,
  },
  {
    name: "the postings cut short",
    damage: (db) => changePostings(db, (data) => data.subarray(0, data.length - 8)),
    searchFinds: /^postings bucket \d+: its checksum does not match$/,
  },
  {
    name: "a postings row's length prefix wrong, its checksum matching",
    // The header's length (the second varint) set to 16,383 bytes, past the end of the row.
    damage: (db) =>
      changePostings(
        db,
        (data) => Uint8Array.from([data[0] as number, 0xff, 0x7f, ...data.subarray(2 + (((data[1] as number) & 0x80) >> 7))]),
        { checksum: true },
      ),
    searchFinds: /^postings bucket \d+: its terms run past the end of the row$/,
  },
  {
    name: "the postings rows gone",
    damage: (db) => db.exec("DELETE FROM fts_postings WHERE index_name = 'code'"),
    searchFinds: /^postings: \d+ of the rows searched are missing$/,
    readFinds: /^postings: it has 0 rows where \d+ were written$/,
  },
];

describe("a damaged full-text snapshot", () => {
  it.each(DAMAGE)(
    "with $name: search answers from vectors and says so, status names it, and the next index rebuilds it",
    async ({ damage, searchFinds, readFinds }) => {
      // The project as first indexed (a case before may have changed it), its index sound and fresh: then the damage.
      project.write(INVOICE, FILES[INVOICE]);
      const fresh = await cli(["index"]);
      expect(fresh.code, fresh.stderr).toBe(0);
      withDatabase(damage);

      const json = await cli(["search", "--json", "render the invoice"]);
      expect(json.code, json.stderr).toBe(0);
      const degraded = JSON.parse(json.stdout) as SearchResponseJson;
      expect(degraded.results.map((result) => result.path)).toContain(INVOICE);
      expect(degraded.results.every((result) => Object.keys(result.signals).join() === "vector")).toBe(true);
      expect(degraded.degraded).toHaveLength(1);
      const note = /^fulltext search failed: the code full-text snapshot is damaged \((.+)\); run `sylk index` to rebuild it$/.exec(
        degraded.degraded?.[0] ?? "",
      );
      expect(note?.[1]).toMatch(searchFinds);

      const text = await cli(["search", "render the invoice"]);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(`${INVOICE}:1-4  (vector #`);
      expect(text.stderr).toContain(`warning: ${degraded.degraded?.[0]}`);

      const status = JSON.parse((await cli(["status", "--json"])).stdout) as StatusJson;
      expect(status.state).toBe("damaged");
      expect(status.damaged).toHaveLength(1);
      expect(status.damaged?.[0]?.index).toBe("code");
      const found = `${status.damaged?.[0]?.part}: ${status.damaged?.[0]?.problem}`;
      expect(found).toMatch(readFinds ?? searchFinds);
      const statusText = await cli(["status"]);
      expect(statusText.stdout).toMatch(/^State: +damaged: a full-text index needs rebuilding \(run `sylk index`\)$/m);
      expect(statusText.stdout).toContain(
        `  damaged: the code full-text snapshot (${found}); \`sylk index\` rebuilds it from the stored terms`,
      );

      project.write(INVOICE, `${FILES[INVOICE]}export const refundVoucherLedger = 1;\n`);
      const index = await cli(["index"]);
      expect(index.code, index.stderr).toBe(0);
      expect(index.stdout).toMatch(/^Done: 1 files indexed/);
      expect(index.stdout).toContain(`Rebuilt the code full-text index from its stored terms: its snapshot was damaged (${found}).`);

      const after = JSON.parse((await cli(["search", "--json", "refundVoucherLedger"])).stdout) as SearchResponseJson;
      expect(after.degraded).toBeUndefined();
      expect(after.results[0]).toMatchObject({ path: INVOICE, signals: { fulltext: { rank: 1 } } });
      const healed = JSON.parse((await cli(["status", "--json"])).stdout) as StatusJson;
      expect(healed.state).toBe("fresh");
      expect(healed.damaged).toBeUndefined();
    },
    180_000,
  );

  it("is rebuilt by `sylk index` with nothing changed, once a search or `sylk status` has found it", async () => {
    project.write(INVOICE, FILES[INVOICE]);
    expect((await cli(["index"])).code).toBe(0);
    withDatabase((db) =>
      changeDocuments(
        db,
        flip((length) => length - 1),
      ),
    );
    expect((await cli(["status", "--json"])).stdout).toContain('"state":"damaged"');

    const index = await cli(["index"]);
    expect(index.code, index.stderr).toBe(0);
    expect(index.stdout).toMatch(/^Index is fresh/);
    expect(index.stdout).toContain(
      "Rebuilt the code full-text index from its stored terms: its snapshot was damaged (documents: its checksum does not match).",
    );
    const after = JSON.parse((await cli(["search", "--json", "renderInvoice"])).stdout) as SearchResponseJson;
    expect(after.degraded).toBeUndefined();
    expect(after.results[0]).toMatchObject({ path: INVOICE, signals: { fulltext: { rank: 1 } } });
  }, 60_000);
});
