#!/usr/bin/env node
// A first index's full-text snapshot built on disk, the documents' side
// alone: every chunk's stored terms (read from an indexed project's
// database, in id order, as a cold index commits them) filed into each
// build's `SegmentedSnapshotBuild` and spilled, builds alternated in one
// process, each round's main-thread CPU (`process.threadCpuUsage`) printed.
// The spilled segments of every build are compared byte for byte with the
// first build's: the snapshot saved from them is then the same.
//
//   npm run build && node scripts/bench-segmented-build.mjs --database <an indexed project's vector.db>
//        [--rounds 5] [--build <another checkout, built> …]
//
// Without --build, this checkout. The database is only read.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadAverages } from "./lib/proc-stats.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    database: { type: "string" },
    rounds: { type: "string", default: "5" },
    build: { type: "string", multiple: true },
  },
});
if (!values.database) {
  console.error("Usage: node scripts/bench-segmented-build.mjs --database <vector.db> [--rounds 5] [--build <checkout> …]");
  process.exit(2);
}

const builds = (values.build ?? [repo]).map((path) => resolve(path));
const Database = createRequire(join(repo, "package.json"))("better-sqlite3");
const source = new Database(resolve(values.database), { readonly: true });
const documents = source.prepare("SELECT id, terms, term_count AS length FROM chunks ORDER BY id").all();
source.close();
console.log(`${documents.length} documents, ${documents.reduce((sum, document) => sum + document.terms.length, 0)} characters of terms`);

const classes = [];
for (const build of builds) {
  const module = await import(pathToFileURL(join(build, "dist/src/search/segmented-snapshot-build.js")).href);
  classes.push(module.SegmentedSnapshotBuild);
}

const cpu = builds.map(() => []);
let reference;
for (let round = 1; round <= Number(values.rounds); round++) {
  // Alternated, and the order reversed every other round.
  const order = builds.map((_, index) => index);
  if (round % 2 === 0) order.reverse();
  for (const index of order) {
    const directory = mkdtempSync(join(tmpdir(), "bench-segmented-build-"));
    try {
      const build = new classes[index](directory);
      const before = process.threadCpuUsage();
      for (let start = 0; start < documents.length; start += 100) build.add(documents.slice(start, start + 100));
      build.spill();
      const used = process.threadCpuUsage(before);
      cpu[index].push((used.user + used.system) / 1e6);
      const segments = readdirSync(directory)
        .sort()
        .map((name) => readFileSync(join(directory, name)));
      if (reference === undefined) reference = segments;
      else if (segments.length !== reference.length || segments.some((bytes, at) => !bytes.equals(reference[at])))
        throw new Error(`${builds[index]}: its spilled segments differ from ${builds[0]}'s`);
      console.log(
        `round ${round}, load ${loadAverages().split(" ")[0]}: ${builds[index]} ${cpu[index].at(-1).toFixed(3)} s (${segments.length} segments)`,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
}
builds.forEach((build, index) => {
  const sorted = [...cpu[index]].sort((a, b) => a - b);
  console.log(`${build}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(3)} s (${cpu[index].map((s) => s.toFixed(3)).join(", ")})`);
});
console.log("spilled segments byte for byte equal across builds");
