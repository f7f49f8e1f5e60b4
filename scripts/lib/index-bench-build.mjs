// What the index benchmarks that measure one build's modules in process
// share: the build's compiled modules, and the files a full walk of a tree
// would index, as that build's scanner finds them.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** This checkout: the build measured when no other is named. */
const thisCheckout = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The build's checkout (`build`, else this one), and `url(path)` and `load(path)` of a module under its dist/src ("indexer/scanner.js"). */
export function buildModules(build) {
  const checkout = resolve(build ?? thisCheckout);
  const url = (path) => pathToFileURL(join(checkout, "dist/src", path)).href;
  return { checkout, url, load: (path) => import(url(path)) };
}

/** The default configuration and every file a full walk of `tree` indexes (`scanProject`), through the build's modules. */
export async function filesToIndex(load, tree) {
  const { scanProject } = await load("indexer/scanner.js");
  const { defaultConfig } = await load("config/schema.js");
  const config = defaultConfig();
  return { config, files: (await scanProject(tree, config.index)).files };
}
