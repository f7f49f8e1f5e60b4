import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * The directory of Sylk's own package.json, where the files that ship beside
 * the code (grammars/) are. Found by walking up from this module: from
 * dist/src/ when built (the bundle keeps each module's URL) and from src/ in
 * tests, in a clone and in a global install alike.
 */
export function sylkPackageRoot(): string {
  if (root) return root;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let directory = start; ; directory = dirname(directory)) {
    const manifest = join(directory, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "sylk") {
      root = directory;
      return root;
    }
    if (dirname(directory) === directory) throw new Error(`Sylk's package.json was not found above ${start}`);
  }
}
