#!/usr/bin/env node
// Copies the non-TypeScript files that modules read at run time (tool
// descriptions, *.txt; role prompts, *.md) from src/ to dist/src/, keeping
// their paths.
import { cpSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(repo, "src");
const target = join(repo, "dist", "src");

function walk(directory) {
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".txt") || name.endsWith(".md")) {
      const destination = join(target, relative(source, path));
      mkdirSync(dirname(destination), { recursive: true });
      cpSync(path, destination);
    }
  }
}
walk(source);
