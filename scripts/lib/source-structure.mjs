// The shape of a TypeScript source tree, read from its own imports with the
// TypeScript compiler's parser: import edges (run-time or type-only), import
// cycles, imports against the layer order, long files and long functions.
// Plain JS so that `node scripts/measure-structure.mjs` needs no build; the
// architecture test imports the same parser and layer order.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import ts from "typescript";

/**
 * The layer order, highest first (`docs/DESIGN-NOTES.md` draws it): a file
 * may import its own layer and the layers below it, never one above. The
 * folders of one layer are peers. A file directly in `src/` (`errors.ts`)
 * counts as the folder named by its base name.
 *
 * A feature folder holds a pure core, which the agent's tools use (a role's
 * tools, the stage states of a pipeline), so features sit below the agent;
 * the part that wires a feature into a session, its shell in
 * `<feature>/session/`, is the composition's: it may import the agent, the
 * context and the store, while the core never imports its shell.
 *
 * `roles/` is the catalogue of who the agents are (types, categories,
 * windows, role prompts, the tool names a role may list): data that the
 * configuration, the context window and every feature read, so it sits at
 * the base and imports nothing above it.
 */
export const LAYERS = [
  { name: "entry", folders: ["cli"] },
  { name: "screen", folders: ["tui"] },
  { name: "composition", folders: ["app"] },
  { name: "presentation", folders: ["format"] },
  { name: "agent", folders: ["agent"] },
  { name: "features", folders: ["team", "handoff", "learning", "knowledge", "mcp", "hooks", "commands"] },
  { name: "context", folders: ["context"] },
  { name: "indexer", folders: ["indexer"] },
  { name: "content-store", folders: ["content-store"] },
  { name: "search", folders: ["search"] },
  { name: "embedding and parsing", folders: ["embedding", "parsing"] },
  { name: "store and models", folders: ["store", "llm"] },
  {
    name: "base",
    folders: [
      "config",
      "roles",
      "project",
      "security",
      "files",
      "tokens",
      "stats",
      "signals",
      "errors",
      "package-root",
      "worker-entry",
      "process-group",
      "abort-signal",
      "fnv1a",
    ],
  },
];

const FEATURES = new Set(LAYERS.find((layer) => layer.name === "features").folders);
const COMPOSITION = LAYERS.findIndex((layer) => layer.name === "composition");

/** Files longer than this many lines, and functions longer than `FUNCTION_LINE_LIMIT`, are reported. */
export const FILE_LINE_LIMIT = 400;
export const FUNCTION_LINE_LIMIT = 120;

const SOURCE = /\.(m|c)?tsx?$/;

/** Every TypeScript file under `directory` (declaration files excepted), as paths relative to it with `/`. */
export function sourceFilesUnder(directory) {
  const found = [];
  const walk = (absolute) => {
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      const path = join(absolute, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name) && !/\.d\.(m|c)?ts$/.test(entry.name)) found.push(relative(directory, path).split("\\").join("/"));
    }
  };
  walk(directory);
  return found.sort();
}

/** The folder (first path segment) a file of `src/` belongs to; a top-level file names its own. */
export function folderOf(file) {
  const slash = file.indexOf("/");
  return slash === -1 ? file.replace(SOURCE, "") : file.slice(0, slash);
}

/** The layer index of a folder (0 is the highest), or undefined for a folder the order does not name. */
export function layerOf(folder) {
  const index = LAYERS.findIndex((layer) => layer.folders.includes(folder));
  return index === -1 ? undefined : index;
}

/**
 * A feature's parts that wire it into a running process, and so sit with the
 * composition: every feature's `session/`, and the MCP server (`mcp/server/`,
 * which opens a project and serves the agent's tools over it).
 */
const SHELL_PARTS = new Set(["session", "mcp/server"]);

/** The layer index of a file of `src/`: its folder's, but a feature's shell (`session/`, `mcp/server/`) is the composition's. */
export function layerOfFile(file) {
  const [folder, part] = file.split("/");
  if (FEATURES.has(folder) && (SHELL_PARTS.has(part) || SHELL_PARTS.has(`${folder}/${part}`))) return COMPOSITION;
  return layerOf(folderOf(file));
}

/** A file of the tree read and parsed once, for its imports, its lines and its functions. */
function parse(root, file) {
  const text = readFileSync(join(root, file), "utf8");
  const kind = file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return { file, text, source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind) };
}

/**
 * Where a relative specifier of `from` leads: a file of the tree (`.js` in the
 * specifier may stand for `.ts` or `.tsx`, as NodeNext resolution has it, and a
 * folder for its `index`), or undefined when nothing there is a source file.
 */
function resolveRelative(files, from, specifier) {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const stem = base.replace(/\.(m|c)?jsx?$/, "");
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((candidate) => files.has(candidate));
}

/** A package specifier's package: `@scope/name` or `name`; `node:fs` as it is. */
function packageOf(specifier) {
  if (specifier.startsWith("node:")) return specifier;
  const parts = specifier.split("/");
  return parts.slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
}

/**
 * Whether an import or export declaration is erased when compiled. With
 * `verbatimModuleSyntax` only `import type` / `export type` are: an
 * `import { type A }` still loads the module (it compiles to `import {} from`).
 */
function typeOnly(node) {
  if (ts.isImportDeclaration(node)) return node.importClause?.isTypeOnly === true;
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  return false;
}

/**
 * The imports of one file: static imports and re-exports, `import x =
 * require()`, dynamic `import("…")` with a literal specifier, and `import("…")`
 * types (type-only). `to` is a file of the tree for a relative specifier, else
 * the package; `line` is 1-based.
 */
function importsOf({ file, source }, files) {
  const edges = [];
  const add = (node, specifier, isTypeOnly) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (specifier.startsWith(".")) {
      const target = resolveRelative(files, file, specifier);
      if (target) edges.push({ from: file, to: target, internal: true, typeOnly: isTypeOnly, line });
      return;
    }
    edges.push({ from: file, to: packageOf(specifier), internal: false, typeOnly: isTypeOnly, line });
  };
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node, node.moduleSpecifier.text, typeOnly(node));
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      if (ts.isStringLiteral(expression)) add(node, expression.text, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) add(node, argument.text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Every import edge of the tree under `root` (`src/`). */
export function readImports(root) {
  return importsOfTree(sourceFilesUnder(root).map((file) => parse(root, file)));
}

function importsOfTree(parsed) {
  const files = parsed.map((entry) => entry.file);
  const known = new Set(files);
  return { files, edges: parsed.flatMap((entry) => importsOf(entry, known)) };
}

/**
 * The import cycles among `files` over `edges` (internal ones): each strongly
 * connected component of more than one file, or a file importing itself, with
 * one shortest cycle through its first file to show how it closes.
 */
export function importCycles(files, edges) {
  const next = new Map(files.map((file) => [file, new Set()]));
  for (const edge of edges) if (edge.internal) next.get(edge.from)?.add(edge.to);
  const components = stronglyConnected(files, next);
  return components
    .filter((component) => component.length > 1 || next.get(component[0])?.has(component[0]))
    .map((component) => {
      const members = [...component].sort();
      return { files: members, path: shortestCycle(members[0], new Set(members), next) };
    })
    .sort((a, b) => b.files.length - a.files.length || (a.files[0] < b.files[0] ? -1 : 1));
}

/** Tarjan's algorithm, iterative (a long import chain must not overflow the stack). */
function stronglyConnected(files, next) {
  const index = new Map();
  const lowLink = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  let counter = 0;
  for (const start of files) {
    if (index.has(start)) continue;
    const work = [{ file: start, targets: [...next.get(start)], position: 0 }];
    index.set(start, counter);
    lowLink.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.position < frame.targets.length) {
        const target = frame.targets[frame.position++];
        if (!index.has(target)) {
          index.set(target, counter);
          lowLink.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, targets: [...(next.get(target) ?? [])], position: 0 });
        } else if (onStack.has(target)) lowLink.set(frame.file, Math.min(lowLink.get(frame.file), index.get(target)));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.file, Math.min(lowLink.get(parent.file), lowLink.get(frame.file)));
      if (lowLink.get(frame.file) === index.get(frame.file)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.file);
        components.push(component);
      }
    }
  }
  return components;
}

/** The shortest path from `start` back to itself within `members` (breadth first), `start` at both ends. */
function shortestCycle(start, members, next) {
  const cameFrom = new Map();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const file = queue[head];
    for (const target of next.get(file) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)) path.unshift(at);
        path.unshift(start);
        return path;
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** Imports from a folder to a folder of a higher layer (type-only ones too: they are a dependency all the same). */
export function layerViolations(edges) {
  return edges
    .filter((edge) => edge.internal)
    .flatMap((edge) => {
      const fromLayer = layerOfFile(edge.from);
      const toLayer = layerOfFile(edge.to);
      if (fromLayer === undefined || toLayer === undefined || toLayer >= fromLayer) return [];
      return [
        {
          from: edge.from,
          to: edge.to,
          line: edge.line,
          typeOnly: edge.typeOnly,
          fromLayer: LAYERS[fromLayer].name,
          toLayer: LAYERS[toLayer].name,
        },
      ];
    });
}

/** Folders of the tree that the layer order does not name (each would escape the check). */
export function foldersWithoutLayer(files) {
  return [...new Set(files.map(folderOf))].filter((folder) => layerOf(folder) === undefined).sort();
}

/** Lines of a text as an editor numbers them (a final newline ends the last line; it does not start another). */
export function lineCount(text) {
  if (text.length === 0) return 0;
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}

/** What a function is called: its own name, or that of the variable, property or class member it is assigned to. */
function functionName(node, source) {
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return `${className(node.parent, source)}.constructor`;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isExportAssignment(parent)) return "default";
  return "(anonymous)";
}

function className(node, source) {
  return node && (ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name ? node.name.getText(source) : "(class)";
}

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

/** Every function with a body in a file: name, first line and length in lines (first to last, both counted). */
function functionsOf({ file, source }) {
  const found = [];
  const visit = (node) => {
    if (FUNCTION_KINDS.has(node.kind) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: functionName(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The whole measurement of the tree under `root`. Cycles are counted at run
 * time (type-only imports are erased); `cyclesWithTypes` counts them too.
 */
export function measureStructure(root) {
  const parsed = sourceFilesUnder(root).map((file) => parse(root, file));
  const { files, edges } = importsOfTree(parsed);
  const runTime = edges.filter((edge) => !edge.typeOnly);
  const lines = parsed.map(({ file, text }) => ({ file, lines: lineCount(text) }));
  return {
    files: files.length,
    lines: lines.reduce((sum, entry) => sum + entry.lines, 0),
    imports: edges.filter((edge) => edge.internal).length,
    runTimeCycles: importCycles(files, runTime),
    cyclesWithTypes: importCycles(files, edges),
    layerViolations: layerViolations(edges),
    foldersWithoutLayer: foldersWithoutLayer(files),
    longFiles: lines.filter((entry) => entry.lines > FILE_LINE_LIMIT).sort((a, b) => b.lines - a.lines),
    longFunctions: parsed
      .flatMap(functionsOf)
      .filter((entry) => entry.lines > FUNCTION_LINE_LIMIT)
      .sort((a, b) => b.lines - a.lines),
  };
}

/** Whether `path` is a directory (the script's argument). */
export function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
