#!/usr/bin/env node
// A synthetic large repository for scale benchmarks: a real tree copied under
// copy-000/, copy-001/, … until it holds --files files.
//
//   node scripts/make-scale-tree.mjs --from <tree> --files 250000 --out <dir>
//
// Copy 0 is the source as it is. In each later copy the first lower-case run
// of every camelCase or snake_case identifier gets the copy's tag
// (`createUserAccount` → `createbcUserAccount` in copy 28), so each copy adds
// terms of its own to the vocabulary, as the packages of a real monorepo do,
// instead of only repeating the same postings; keywords and other all
// lower-case words are left alone, so the files still parse. Files that are
// not UTF-8 text, or larger than the indexer reads, are copied byte for byte.
// `.git` is left out. The source is only read.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    from: { type: "string" },
    files: { type: "string" },
    out: { type: "string" },
  },
});
if (!values.from || !values.files || !values.out) {
  console.error("Usage: node scripts/make-scale-tree.mjs --from <tree> --files <count> --out <dir>");
  process.exit(2);
}
const source = resolve(values.from);
const out = resolve(values.out);
const wanted = Number(values.files);
if (!Number.isInteger(wanted) || wanted < 1) throw new Error(`--files must be a positive integer, not ${values.files}`);
if (out.startsWith(`${source}/`) || out === source) throw new Error("--out must not be inside --from");

/** Larger than the indexer's default limit: copied as they are. */
const REWRITE_MAX_BYTES = 1 << 20;
const IDENTIFIER = /\b([a-z][a-z0-9]*)(?=[A-Z_][A-Za-z0-9_]*\b)/g;
const utf8 = new TextDecoder("utf-8", { fatal: true });

const sourceFiles = listFiles(source, "");
if (sourceFiles.length === 0) throw new Error(`no files under ${source}`);
if (existsSync(out)) rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

let written = 0;
let copyNumber = 0;
const started = performance.now();
while (written < wanted) {
  const copyDir = `copy-${String(copyNumber).padStart(3, "0")}`;
  const tag = copyNumber === 0 ? "" : copyTag(copyNumber);
  const madeDirectories = new Set();
  for (const path of sourceFiles) {
    if (written >= wanted) break;
    const target = join(out, copyDir, path);
    const directory = target.slice(0, target.lastIndexOf("/"));
    if (!madeDirectories.has(directory)) {
      mkdirSync(directory, { recursive: true });
      madeDirectories.add(directory);
    }
    copyOne(join(source, path), target, tag);
    written++;
  }
  console.error(`${copyDir}: ${written} files so far (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  copyNumber++;
}
console.log(JSON.stringify({ out, files: written, copies: copyNumber, sourceFiles: sourceFiles.length }));

/** Regular files below `root`, relative paths, sorted (so every run makes the same tree); `.git` and links left out. */
function listFiles(root, relative) {
  const entries = readdirSync(join(root, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  const files = [];
  for (const entry of entries) {
    const path = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name !== ".git") files.push(...listFiles(root, path));
    } else if (entry.isFile()) {
      files.push(path);
    }
  }
  return files;
}

function copyOne(from, to, tag) {
  if (!tag) {
    copyFileSync(from, to);
    return;
  }
  const bytes = readFileSync(from);
  const text = bytes.length <= REWRITE_MAX_BYTES && !bytes.includes(0) ? decoded(bytes) : undefined;
  if (text === undefined) writeFileSync(to, bytes);
  else writeFileSync(to, text.replace(IDENTIFIER, `$1${tag}`));
}

function decoded(bytes) {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Lower-case letters for the copy's number (1 → "b", 28 → "bc"): part of a word to the tokenizer, never a new word. */
function copyTag(number) {
  let tag = "";
  let rest = number;
  do {
    tag = String.fromCharCode(97 + (rest % 26)) + tag;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return tag;
}
