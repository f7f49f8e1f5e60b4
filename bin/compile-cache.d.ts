/** Where the bundle's compiled code is cached: `$XDG_CACHE_HOME/sylk/compile-cache`, by default `~/.cache/sylk/compile-cache`. */
export function compileCacheDirectory(env: NodeJS.ProcessEnv): string;
/** Turns Node's compile cache on in that directory; undefined when it could not. */
export function enableSylkCompileCache(env: NodeJS.ProcessEnv): { status: number; message?: string; directory?: string } | undefined;
