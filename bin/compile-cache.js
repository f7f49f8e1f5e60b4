// Node's compile cache for the bundle: V8 keeps the code it compiled from
// each module on disk and the next launch reads it back instead of parsing
// and compiling ~2 MB of JavaScript again (most of a launch's own CPU time).
// Plain JavaScript that runs before the bundle loads.
import { mkdirSync } from "node:fs";
import { enableCompileCache } from "node:module";
import { homedir } from "node:os";
import { resolve } from "node:path";

/**
 * `$XDG_CACHE_HOME/sylk/compile-cache` (`~/.cache/sylk/…` by default), made
 * 0700: the user's own directory, not the shared temporary one Node would
 * pick, where another user could leave code for this one to load. Not in
 * SYLK_HOME, which is checked (never inside the project) only once the
 * bundle runs, and which holds owner-only files.
 */
export function compileCacheDirectory(env) {
  const nonBlank = (value) => (value === undefined || value.trim() === "" ? undefined : value);
  const cache = nonBlank(env.XDG_CACHE_HOME) ?? resolve(nonBlank(env.HOME) ?? homedir(), ".cache");
  return resolve(cache, "sylk", "compile-cache");
}

/** Turns the cache on; a directory that cannot be made (a read-only home) only costs the cache. */
export function enableSylkCompileCache(env) {
  try {
    const directory = compileCacheDirectory(env);
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    return enableCompileCache(directory);
  } catch {
    return undefined;
  }
}
