import { describe, expect, it } from "vitest";
import { detectLanguage } from "../../src/parsing/languages.js";
import {
  documentKindWeight,
  isSourceFile,
  isTestPath,
  isTestSnapshot,
  NON_SOURCE_WEIGHT,
  orderByDocumentKind,
} from "../../src/search/document-kind.js";

const weightOfPath = (path: string) => documentKindWeight(path, detectLanguage(path));

describe("isTestSnapshot", () => {
  it("knows the recorded output of Jest, Vitest and insta, and nothing else", () => {
    for (const path of [
      "src/__snapshots__/view.tsx.snap",
      "__snapshots__/render.html",
      "packages/vite/src/node/__tests__/__snapshots__/build.spec.ts.snap",
      "crates/biome_js_analyze/tests/specs/a11y/useAltText/valid.jsx.snap",
      "tests/snapshots/cli__help.snap",
    ])
      expect(isTestSnapshot(path), path).toBe(true);
    for (const path of ["src/snapshot.ts", "src/snap/index.ts", "docs/snapshots.md", "tests/test_snap.py", "src/my__snapshots__/a.ts"])
      expect(isTestSnapshot(path), path).toBe(false);
  });
});

describe("isTestPath", () => {
  it("knows tests by their directories", () => {
    for (const path of [
      "packages/vite/src/node/__tests__/build.spec.ts",
      "tests/test_basic.py",
      "test/helpers/run-cli.ts",
      "src/__snapshots__/view.tsx.snap",
      "src/__mocks__/fs.ts",
      "crates/biome_js_analyze/tests/specs/a11y/useAltText.jsx",
      "pkg/parser/testdata/input.go",
      "packages/create-vite/fixtures/basic/index.js",
    ])
      expect(isTestPath(path), path).toBe(true);
  });

  it("knows tests by their names", () => {
    for (const path of [
      "src/app.test.ts",
      "src/button.spec.jsx",
      "test_views.py",
      "app/views_test.py",
      "server/http_test.go",
      "conftest.py",
    ])
      expect(isTestPath(path), path).toBe(true);
  });

  it("leaves source whose name only contains a test word alone", () => {
    for (const path of [
      "src/flask/testing.py",
      "src/testing-library.ts",
      "src/latest.ts",
      "packages/vite/src/node/server/middlewares/proxy.ts",
      "src/contest.py",
      "src/spec-parser.ts",
      "testdata.go",
    ])
      expect(isTestPath(path), path).toBe(false);
  });
});

describe("documentKindWeight", () => {
  it("weighs source code 1 and everything else NON_SOURCE_WEIGHT", () => {
    expect(NON_SOURCE_WEIGHT).toBe(0.5);
    for (const path of ["src/node/config.ts", "src/flask/app.py", "src/App.vue", "cmd/main.go", "src/lib.rs", "Makefile", "schema.sql"])
      expect(weightOfPath(path), path).toBe(1);
    for (const path of [
      "packages/vite/CHANGELOG.md",
      "docs/guide/api-plugin.md",
      "docs/api.rst",
      "LICENSE",
      "package.json",
      ".github/workflows/ci.yml",
      "pyproject.toml",
      "index.html",
      "src/style.css",
      "src/parser.test.ts",
      "tests/test_app.py",
    ])
      expect(weightOfPath(path), path).toBe(NON_SOURCE_WEIGHT);
  });

  it("does not take an unknown language for source", () => {
    expect(isSourceFile("src/main.ts", null)).toBe(false);
  });
});

describe("orderByDocumentKind", () => {
  const weights: Record<number, number> = { 1: 0.5, 2: 1, 3: 1, 4: 0.5 };
  const weightOf = (id: number) => weights[id] ?? 1;

  it("orders hits by score times weight and keeps each hit's own score beside the weighted one", () => {
    // 10 × 0.5 = 5 < 6 < 7: the changelog's clearly best raw score still loses to source that scores above half of it.
    const ordered = orderByDocumentKind(
      [
        { id: 1, score: 10 },
        { id: 2, score: 7 },
        { id: 3, score: 4 },
      ],
      weightOf,
    );
    expect(ordered).toEqual([
      { id: 2, score: 7, weightedScore: 7 },
      { id: 1, score: 10, weightedScore: 5 },
      { id: 3, score: 4, weightedScore: 4 },
    ]);
  });

  it("lets a non-source hit keep first place when it scores more than twice the best source hit", () => {
    const ordered = orderByDocumentKind(
      [
        { id: 1, score: 10 },
        { id: 2, score: 4.9 },
      ],
      weightOf,
    );
    expect(ordered.map((hit) => hit.id)).toEqual([1, 2]);
  });

  it("keeps the signal's order among equal weighted scores", () => {
    const ordered = orderByDocumentKind(
      [
        { id: 3, score: 2 },
        { id: 1, score: 4 },
        { id: 2, score: 2 },
      ],
      weightOf,
    );
    expect(ordered.map((hit) => hit.id)).toEqual([3, 1, 2]);
  });

  it("moves a non-source hit down also when its score is negative", () => {
    // A vector similarity of −0.2 becomes −0.4, below the source hit's −0.3.
    const ordered = orderByDocumentKind(
      [
        { id: 4, score: -0.2 },
        { id: 2, score: -0.3 },
      ],
      weightOf,
    );
    expect(ordered.map((hit) => [hit.id, hit.weightedScore])).toEqual([
      [2, -0.3],
      [4, -0.4],
    ]);
  });
});
