// A damaged full-text snapshot (its blobs cut short in the real database) is detected: search
// falls back to the other signal, status does not call the index fresh, and the next index
// rebuilds it from the store.
import { join } from "node:path";
import { excerpt } from "./harness.mjs";
import { openDatabase, projectDataDir } from "./observe.mjs";

const GROUP = "store";
const FILES = Object.fromEntries(
  Array.from({ length: 5 }, (_, index) => [
    `src/widget${index}.ts`,
    `export function handler${index}(value: number) {\n  return value * ${index}; // multiplier for widget${index}\n}\n`,
  ]),
);

/** An indexed project whose full-text snapshot (fts_postings, fts_documents) is then cut short. */
async function damagedIndex(open, repo) {
  const lab = await open(FILES);
  const indexed = await lab.sylk(["index", "--yes"]);
  if (indexed.code !== 0) throw new Error(`sylk index failed: ${excerpt(indexed.stderr)}`);
  const db = openDatabase(repo, join(projectDataDir(lab.sylkHome, lab.root), "vector.db"), { readonly: false });
  const damaged =
    db.prepare("UPDATE fts_postings SET data = substr(data, 1, 7)").run().changes +
    db.prepare("UPDATE fts_documents SET documents = substr(documents, 1, 5)").run().changes;
  db.close();
  if (damaged === 0) throw new Error("the database has no full-text snapshot to damage (fts_postings, fts_documents)");
  return lab;
}

const searchDegraded = {
  id: "store-search-degraded",
  group: GROUP,
  title: "sylk search still answers (degraded) when the full-text snapshot is damaged",
  needs: [],
  async run({ lab: open, environment }) {
    const lab = await damagedIndex(open, environment.repo);
    const run = await lab.sylk(["search", "multiplier for widget3"]);
    const found = run.stdout.includes("src/widget3.ts");
    return {
      held: run.code === 0 && found,
      detail:
        run.code === 0
          ? found
            ? "answered from the other signal"
            : `answered without the file: ${excerpt(run.stdout)}`
          : `sylk search exited ${run.code}: ${excerpt(run.stderr)}`,
    };
  },
};

const statusNamesDamage = {
  id: "store-status-not-fresh",
  group: GROUP,
  title: "sylk status does not call an index with a damaged full-text snapshot fresh",
  needs: [],
  async run({ lab: open, environment }) {
    const lab = await damagedIndex(open, environment.repo);
    const run = await lab.sylk(["status", "--json"]);
    let state;
    try {
      state = JSON.parse(run.stdout).state;
    } catch {
      throw new Error(`sylk status --json printed no JSON (exit ${run.code}): ${excerpt(run.stderr || run.stdout)}`);
    }
    return { held: state !== "fresh", detail: `sylk status says the state is ${JSON.stringify(state)}` };
  },
};

const indexRebuilds = {
  id: "store-index-rebuilds",
  group: GROUP,
  title: "sylk index after a change succeeds over a damaged full-text snapshot and makes the change searchable",
  needs: [],
  async run({ lab: open, environment }) {
    const lab = await damagedIndex(open, environment.repo);
    lab.write("src/widget1.ts", "export function handler1(value: number) {\n  return value * 11; // recalibrated for zeppelin\n}\n");
    const run = await lab.sylk(["index"]);
    if (run.code !== 0) return { held: false, detail: `sylk index exited ${run.code}: ${excerpt(run.stderr.trim().split("\n").at(-1))}` };
    const search = await lab.sylk(["search", "--signals", "fulltext", "zeppelin"]);
    const found = search.code === 0 && search.stdout.includes("src/widget1.ts");
    return {
      held: found,
      detail: found
        ? "indexed, and the full-text signal finds the change"
        : `indexed, but a full-text search for the change exits ${search.code}: ${excerpt(search.stderr || search.stdout)}`,
    };
  },
};

export const storeProbes = [searchDegraded, statusNamesDamage, indexRebuilds];
