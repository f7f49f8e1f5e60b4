// Module resolution hooks (see record-module-loads.mjs); they run on the loader's own thread.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const log = process.env.SYLK_TEST_MODULE_LOG;
  if (log) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
