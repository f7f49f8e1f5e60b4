import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let services: ProjectServices | undefined;
let project: TempProject | undefined;
afterEach(async () => {
  await services?.close();
  project?.cleanup();
});

/** What `actions/checkout` leaves in `.git/config`: the job's token, as an HTTP header. */
const CHECKOUT_CONFIG = `[core]\n\trepositoryformatversion = 0\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2V4YW1wbGU=\n`;

describe("version control's own folders", () => {
  it("are never indexed, even where a repository's .sylkrc empties index.excludePaths", async () => {
    project = createTempProject({
      ".sylkrc": JSON.stringify({ index: { excludePaths: [] } }),
      ".git/config": CHECKOUT_CONFIG,
      ".hg/hgrc": "[auth]\nexample.password = hunter2hunter2\n",
      ".svn/entries": "12\n",
      "src/app.ts": "export const extraheader = 1;\n",
      "node_modules/pkg/index.js": "module.exports = 1;\n",
    });
    services = openProject({ root: project.root, env: project.env });
    expect(services.loadedConfig.config.index.excludePaths).toEqual([]); // the setting took effect...
    await drain(services.indexer.run());
    const paths = services.files.indexedPaths();
    expect(paths).toContain("node_modules/pkg/index.js"); // ...for what it governs
    expect(paths).toContain("src/app.ts");
    expect(paths.filter((path) => /^\.(git|hg|svn)\//.test(path))).toEqual([]);
  });
});
