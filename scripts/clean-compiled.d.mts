// Types of scripts/clean-compiled.mjs (plain JS, run by node without a build), for the test that imports it.

/** The directories tsc emits into under dist/. */
export const COMPILED_DIRECTORIES: readonly string[];
/** Removes them (and everything in them) from `distDirectory`; missing ones are not an error. */
export function cleanCompiled(distDirectory: string): void;
