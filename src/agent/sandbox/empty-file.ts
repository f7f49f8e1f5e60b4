import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * An empty read-only file under `$SYLK_HOME`, which bubblewrap binds over
 * each hidden file: reading it gives nothing, as an absent secret should.
 * (`/dev/null` cannot stand in: bubblewrap mounts binds `nodev`, so opening
 * it there fails, and `npm` fails on an unreadable `~/.npmrc`.) Made again
 * if something filled it.
 */
export function emptyFileIn(sylkHome: string): string {
  const path = join(sylkHome, "sandbox-empty-file");
  try {
    if (statSync(path).size === 0) return path;
    chmodSync(path, 0o600);
  } catch {
    mkdirSync(sylkHome, { recursive: true, mode: 0o700 });
  }
  writeFileSync(path, "");
  chmodSync(path, 0o444);
  return path;
}
