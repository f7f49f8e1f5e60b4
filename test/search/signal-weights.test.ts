import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;

const TOPICS = [
  "invoice rounding",
  "tax rates",
  "currency conversion",
  "refund policy",
  "discount codes",
  "shipping fees",
  "receipt printing",
  "ledger export",
];

beforeEach(async () => {
  project = createTempProject(
    Object.fromEntries(
      TOPICS.map((topic, index) => [
        `src/module${index}.ts`,
        `// ${topic}: handles ${topic} for the billing service\nexport function handle${index}(amount: number): number {\n  return amount * ${index + 2}; // ${TOPICS[(index + 3) % TOPICS.length]}\n}\n`,
      ]),
    ),
  );
  services = openProject({ root: project.root, env: project.env });
  await drainIndex(services);
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

const order = async (query: string, options: Parameters<ProjectServices["codeSearcher"]["search"]>[1]) =>
  (await services.codeSearcher.search(query, { limit: 8, ...options })).hits.map((hit) => hit.path);

describe("signal weights in the fusion (what self-tuning retrieval's vectorWeight sets)", () => {
  it("a vector weight of 0 leaves full text's order; a dominant one, the vector signal's", async () => {
    for (const query of ["rounding of invoice tax", "refund and discount handling", "currency shipping fees"]) {
      const fullText = await order(query, { signals: ["fulltext"] });
      const vector = await order(query, { signals: ["vector"] });
      const onlyText = await order(query, { signalWeights: { vector: 0 } });
      const mostlyVector = await order(query, { signalWeights: { vector: 1_000 } });
      // The built-in vectors only corroborate: whatever their weight, the files are full text's, in its order
      // at weight 0 and in the vectors' order when they dominate.
      expect(onlyText).toEqual(fullText);
      expect(mostlyVector).toEqual(vector.filter((path) => fullText.includes(path)));
    }
  });
});
