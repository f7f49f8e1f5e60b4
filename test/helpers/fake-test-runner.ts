import { chmodSync } from "node:fs";
import { join } from "node:path";
import type { TempProject } from "./temp-project.js";

/** A stand-in `vitest`: prints a real-looking summary with one failing test and exits 1. */
const FAKE_VITEST = `#!/usr/bin/env node
console.log(" FAIL  test/cart.test.ts > cart > adds tax");
console.log("");
console.log(" Test Files  1 failed | 3 passed (4)");
console.log("      Tests  1 failed | 11 passed (12)");
process.exit(1);
`;

/** Writes the stand-in to `bin/vitest`; returns the command that runs it as `vitest run` (a check command). */
export function installFakeVitest(project: TempProject): string {
  project.write("bin/vitest", FAKE_VITEST);
  chmodSync(join(project.root, "bin/vitest"), 0o755);
  return 'PATH="$PWD/bin:$PATH" vitest run';
}
