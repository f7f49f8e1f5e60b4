// What every esbuild bundle of Sylk's code shares: the options and the
// plugins that patch dependencies as they are bundled. Used by
// scripts/bundle.mjs (the CLI's bundle) and by scripts/lib/launch-floor.mjs
// (a bare Ink prompt built the same way, the floor bench-tui-launch compares
// a launch with).
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { narrowCodePoints, narrowTextPattern } from "./narrow-characters.mjs";

/** The build options both bundles use; each adds its entry points, output, externals and plugins. */
export function sharedBuildOptions() {
  return {
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    // ES module builds first: some packages (jsonc-parser) ship UMD as "main", which bundles badly.
    mainFields: ["module", "main"],
    // React's production build: the development one checks and warns on every render.
    define: { "process.env.NODE_ENV": '"production"' },
    // CommonJS packages inside an ES module bundle still call require() for Node built-ins.
    banner: {
      js: 'import { createRequire as __sylkCreateRequire } from "node:module"; const require = __sylkCreateRequire(import.meta.url);',
    },
    logLevel: "warning",
  };
}

/**
 * Ink's layout engine (yoga-layout) embeds its WebAssembly as a data: URL and,
 * wherever `fetch` exists, fetches it: in Node that loads the whole undici
 * HTTP client (~20 ms of the TUI's start) to decode a base64 string. Its own
 * fallback decodes it directly; the fetch path is switched off.
 */
export const decodeYogaWithoutFetch = {
  name: "decode-yoga-without-fetch",
  setup(builder) {
    builder.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, async (args) => {
      const contents = await readFile(args.path, "utf8");
      const patched = contents.replaceAll('"function"!=typeof fetch', "!0");
      if (patched === contents) throw new Error(`yoga-layout changed: no fetch check to switch off in ${args.path}`);
      return { contents: patched, loader: "js" };
    });
  },
};

/**
 * Commander requires child_process at load, for subcommands that are
 * separate executables (sylk has none): ~2.5 ms of every command's start-up,
 * a one-shot search's included. It is required on first use instead.
 */
export const lazyChildProcessInCommander = {
  name: "lazy-child-process-in-commander",
  setup(builder) {
    builder.onLoad({ filter: /commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const contents = await readFile(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      if (!contents.includes(eager)) throw new Error(`commander changed: no child_process require to defer in ${args.path}`);
      const lazy = "const childProcess = { spawn: (...spawnArgs) => require('node:child_process').spawn(...spawnArgs) };";
      const patched = contents.replace(eager, lazy);
      if (/childProcess\.(?!spawn\()/.test(patched))
        throw new Error(`commander changed: it uses more of child_process than spawn in ${args.path}`);
      return { contents: patched, loader: "js" };
    });
  },
};

/**
 * better-sqlite3 finds its addon (one compiled on purpose, else the prebuilt
 * one for the platform) relative to its own `lib/` directory through
 * `__dirname`, which an ES module bundle lacks. Bundled, `__dirname` is that
 * directory as Node resolves the package from the bundle, wherever npm put it.
 */
export const betterSqliteDirname = {
  name: "better-sqlite3-dirname",
  setup(builder) {
    builder.onLoad({ filter: /better-sqlite3[\\/]lib[\\/]binding\.js$/ }, async (args) => {
      const contents = await readFile(args.path, "utf8");
      if (!contents.includes("__dirname")) throw new Error(`better-sqlite3 changed: no __dirname to provide in ${args.path}`);
      const dirname =
        'const __dirname = require("node:path").join(require("node:path").dirname(require.resolve("better-sqlite3/package.json")), "lib");';
      return { contents: `${dirname}\n${contents}`, loader: "js" };
    });
  },
};

/**
 * string-width (Ink's copies) measures only printable ASCII without
 * Intl.Segmenter and its Unicode-property expressions, whose compilation
 * cost the first frame tens of milliseconds (scripts/lib/narrow-characters.mjs).
 * Each copy gets a second shortcut for text of characters that copy itself
 * measures one column wide alone and that never join: their count is the width.
 */
export const narrowTextShortcut = {
  name: "narrow-text-shortcut",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const contents = await readFile(args.path, "utf8");
      const asciiShortcut = "if (/^[\\u0020-\\u007E]*$/.test(string)) {\n\t\treturn string.length;\n\t}";
      // A 7.x copy (wrap-ansi's) has no shortcut to widen; src/format/visible-text.ts loads its own from node_modules.
      if (!contents.includes("u007E")) return undefined;
      if (!contents.includes(asciiShortcut) || !contents.includes("ambiguousIsNarrow = true"))
        throw new Error(`string-width changed: no ASCII shortcut to widen in ${args.path}`);
      const { default: stringWidth } = await import(pathToFileURL(args.path).href);
      const pattern = narrowTextPattern(narrowCodePoints(stringWidth));
      const narrow = `if (ambiguousIsNarrow && /${pattern}/.test(string)) {\n\t\treturn string.length;\n\t}`;
      return { contents: contents.replace(asciiShortcut, `${asciiShortcut}\n\t${narrow}`), loader: "js" };
    });
  },
};
