#!/usr/bin/env node
// The structure of Sylk's source, measured from its own imports: run-time
// import cycles, imports against the layer order, files over 400 lines and
// functions over 120 lines. `docs/DESIGN-NOTES.md` keeps the figures.
//
//   node scripts/measure-structure.mjs [--json] [source directory, default src]
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FILE_LINE_LIMIT, FUNCTION_LINE_LIMIT, isDirectory, LAYERS, measureStructure } from "./lib/source-structure.mjs";

const args = process.argv.slice(2);
const json = args.includes("--json");
const unknown = args.filter((arg) => arg.startsWith("-") && arg !== "--json");
const directories = args.filter((arg) => !arg.startsWith("-"));
if (unknown.length > 0 || directories.length > 1) {
  process.stderr.write("usage: node scripts/measure-structure.mjs [--json] [source directory]\n");
  process.exit(2);
}
const root = resolve(directories[0] ?? fileURLToPath(new URL("../src", import.meta.url)));
if (!isDirectory(root)) {
  process.stderr.write(`measure-structure: ${root} is not a directory\n`);
  process.exit(2);
}

const measured = measureStructure(root);
if (json) {
  process.stdout.write(`${JSON.stringify(measured, null, 2)}\n`);
} else {
  process.stdout.write(report(measured));
}

function report(m) {
  const lines = [`${m.files} files, ${m.lines} lines, ${m.imports} imports between them`, ""];
  const section = (title, items, describe) => {
    lines.push(`${title}: ${items.length}`);
    for (const item of items) lines.push(`  ${describe(item)}`);
    lines.push("");
  };
  section(
    "Run-time import cycles",
    m.runTimeCycles,
    (cycle) => `${cycle.files.length} files: ${cycle.files.join(", ")}\n    for example ${cycle.path.join(" → ")}`,
  );
  lines.push(
    `Import cycles counting type-only imports: ${m.cyclesWithTypes.length} (${m.cyclesWithTypes.map((cycle) => `${cycle.files.length} files`).join(", ") || "none"})`,
    "",
  );
  section(
    "Imports against the layer order",
    m.layerViolations,
    (edge) => `${edge.from}:${edge.line} → ${edge.to}${edge.typeOnly ? " (type-only)" : ""}  [${edge.fromLayer} → ${edge.toLayer}]`,
  );
  if (m.foldersWithoutLayer.length > 0)
    lines.push(`Folders the layer order does not name (not checked): ${m.foldersWithoutLayer.join(", ")}`, "");
  section(`Files over ${FILE_LINE_LIMIT} lines`, m.longFiles, (file) => `${file.file}: ${file.lines}`);
  section(`Functions over ${FUNCTION_LINE_LIMIT} lines`, m.longFunctions, (fn) => `${fn.file}:${fn.line} ${fn.name}: ${fn.lines}`);
  lines.push(`Layer order, highest first: ${LAYERS.map((layer) => layer.folders.join(" ")).join(" > ")}`);
  return `${lines.join("\n")}\n`;
}
