import { describe, expect, it } from "vitest";
import { commandExitCode } from "../../../../src/agent/tools/run-command.js";
import {
  checkKindOf,
  parseTestSummary,
  renderTestRun,
  storedTestRun,
  testRunOf,
} from "../../../../src/agent/tools/role-tools/test-run-summary.js";

const VITEST = `
 RUN  v3.2.4 /home/dev/shop

 ✓ test/cart/total.test.ts (9 tests) 12ms
 ❯ test/cart/discount.test.ts (6 tests | 3 failed) 18ms
   × discount > applies a percentage 5ms
     → expected 90 to be 81 // Object.is equality
   × discount > caps at the order total 2ms
   ✓ discount > ignores expired codes 1ms
   × discount > stacks two codes 1ms

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 3 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/cart/discount.test.ts > discount > applies a percentage
AssertionError: expected 90 to be 81 // Object.is equality
 ❯ test/cart/discount.test.ts:14:32

 FAIL  test/cart/discount.test.ts > discount > caps at the order total
 FAIL  test/cart/discount.test.ts > discount > stacks two codes

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 Test Files  1 failed | 1 passed (2)
      Tests  3 failed | 12 passed (15)
   Start at  10:41:07
   Duration  412ms (transform 61ms, setup 0ms, collect 88ms, tests 30ms, environment 0ms, prepare 102ms)
`;

const JEST = `
FAIL src/__tests__/parser.test.js
  ● parser › reads nested arrays

    expect(received).toEqual(expected) // deep equality

      at Object.<anonymous> (src/__tests__/parser.test.js:22:30)

PASS src/__tests__/lexer.test.js

Test Suites: 1 failed, 1 passed, 2 total
Tests:       1 failed, 2 skipped, 10 passed, 13 total
Snapshots:   0 total
Time:        1.873 s
Ran all test suites.
`;

const PYTEST = `
============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0
rootdir: /home/dev/api
collected 13 items

tests/test_users.py ..F.....                                             [ 61%]
tests/test_orders.py .F..s                                               [100%]

=================================== FAILURES ===================================
_______________________________ test_create_user _______________________________
E       assert 404 == 201
=========================== short test summary info ============================
FAILED tests/test_users.py::test_create_user - assert 404 == 201
FAILED tests/test_orders.py::TestOrders::test_refund - KeyError: 'amount'
=================== 2 failed, 10 passed, 1 skipped in 0.52s ====================
`;

const GO_VERBOSE = `
=== RUN   TestParse
--- PASS: TestParse (0.00s)
=== RUN   TestEncode
=== RUN   TestEncode/unicode
    encode_test.go:31: got "\\u00e9", want "é"
--- FAIL: TestEncode (0.00s)
    --- FAIL: TestEncode/unicode (0.00s)
=== RUN   TestNetwork
    net_test.go:12: needs network
--- SKIP: TestNetwork (0.00s)
FAIL
FAIL	example.com/codec/encode	0.012s
ok  	example.com/codec/parse	0.008s
FAIL
`;

const GO_QUIET = `
ok  	example.com/codec/parse	(cached)
ok  	example.com/codec/encode	0.011s
`;

const CARGO = `
   Compiling ledger v0.1.0 (/home/dev/ledger)
    Finished \`test\` profile [unoptimized + debuginfo] target(s) in 1.02s
     Running unittests src/lib.rs (target/debug/deps/ledger-3f2a9c)

running 4 tests
test tests::adds_entries ... ok
test tests::rejects_negative ... FAILED
test tests::balances ... ok
test tests::rounds ... ok

failures:

---- tests::rejects_negative stdout ----
thread 'tests::rejects_negative' panicked at src/lib.rs:40:9:
assertion failed: ledger.add(-1).is_err()

failures:
    tests::rejects_negative

test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests ledger

running 1 test
test src/lib.rs - Ledger (line 5) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.21s
`;

describe("parseTestSummary", () => {
  it("reads vitest's Tests line and its FAIL lines, not the Test Files line", () => {
    expect(parseTestSummary(VITEST)).toEqual({
      runner: "vitest",
      passed: 12,
      failed: 3,
      skipped: 0,
      total: 15,
      failingTests: [
        "test/cart/discount.test.ts > discount > applies a percentage",
        "test/cart/discount.test.ts > discount > caps at the order total",
        "test/cart/discount.test.ts > discount > stacks two codes",
      ],
    });
  });

  it("reads vitest's summary through colour codes, with skipped and todo", () => {
    const coloured =
      "\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[32m14 passed\u001b[39m\u001b[22m\u001b[90m | \u001b[39m\u001b[33m2 skipped\u001b[39m\u001b[90m | \u001b[39m1 todo\u001b[90m (17)\u001b[39m\n";
    expect(parseTestSummary(coloured)).toEqual({ runner: "vitest", passed: 14, failed: 0, skipped: 3, total: 17, failingTests: [] });
  });

  it("reads jest's Tests: line and its ● lines", () => {
    expect(parseTestSummary(JEST)).toEqual({
      runner: "jest",
      passed: 10,
      failed: 1,
      skipped: 2,
      total: 13,
      failingTests: ["parser › reads nested arrays"],
    });
  });

  it("does not take jest's 'Test suite failed to run' for a test name", () => {
    const output = "  ● Test suite failed to run\n\n    Cannot find module './x'\n\nTests:       0 total\n";
    expect(parseTestSummary(output)).toEqual({ runner: "jest", passed: 0, failed: 0, skipped: 0, total: 0, failingTests: [] });
  });

  it("reads pytest's closing line and its FAILED lines", () => {
    expect(parseTestSummary(PYTEST)).toEqual({
      runner: "pytest",
      passed: 10,
      failed: 2,
      skipped: 1,
      failingTests: ["tests/test_users.py::test_create_user", "tests/test_orders.py::TestOrders::test_refund"],
    });
  });

  it("reads pytest -q's bare line, counting errors as failures", () => {
    expect(parseTestSummary("..E.\n1 error, 3 passed, 2 warnings in 0.10s\n")).toEqual({
      runner: "pytest",
      passed: 3,
      failed: 1,
      skipped: 0,
      failingTests: [],
    });
  });

  it("reads go test -v: failing tests and subtests, passes, skips and packages", () => {
    expect(parseTestSummary(GO_VERBOSE)).toEqual({
      runner: "go",
      passed: 1,
      failed: 2,
      skipped: 1,
      packages: { passed: 1, failed: 1 },
      failingTests: ["TestEncode", "TestEncode/unicode"],
    });
  });

  it("claims no pass count from go test without -v, only the packages", () => {
    expect(parseTestSummary(GO_QUIET)).toEqual({
      runner: "go",
      failed: 0,
      skipped: 0,
      packages: { passed: 2, failed: 0 },
      failingTests: [],
    });
  });

  it("sums cargo's test result lines over the test binaries and doc tests", () => {
    expect(parseTestSummary(CARGO)).toEqual({
      runner: "cargo",
      passed: 4,
      failed: 1,
      skipped: 0,
      failingTests: ["tests::rejects_negative"],
    });
  });

  it("recognises nothing in a build's or a linter's output", () => {
    expect(parseTestSummary("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n")).toBeUndefined();
    expect(
      parseTestSummary("/src/a.ts\n  3:7  error  'x' is defined but never used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n"),
    ).toBeUndefined();
  });
});

describe("checkKindOf", () => {
  it("files a command under test, typecheck, lint or build", () => {
    expect(checkKindOf("npx vitest run test/cart")).toBe("test");
    expect(checkKindOf("npm test")).toBe("test");
    expect(checkKindOf("python -m pytest -q")).toBe("test");
    expect(checkKindOf("go test ./...")).toBe("test");
    expect(checkKindOf("cargo test")).toBe("test");
    expect(checkKindOf("npm run typecheck")).toBe("typecheck");
    expect(checkKindOf("npx tsc --noEmit -p .")).toBe("typecheck");
    expect(checkKindOf("mypy src")).toBe("typecheck");
    expect(checkKindOf("cargo check")).toBe("typecheck");
    expect(checkKindOf("npx eslint src")).toBe("lint");
    expect(checkKindOf("cargo clippy -- -D warnings")).toBe("lint");
    expect(checkKindOf("go vet ./...")).toBe("lint");
    expect(checkKindOf("ruff check .")).toBe("lint");
    expect(checkKindOf("npm run build")).toBe("build");
    expect(checkKindOf("make")).toBe("build");
    expect(checkKindOf("go build ./cmd/app")).toBe("build");
  });

  it("files a chain under its most telling check", () => {
    expect(checkKindOf("npm run build && npm test")).toBe("test");
    expect(checkKindOf("npm run build && npm run typecheck")).toBe("typecheck");
  });
});

describe("a recorded run", () => {
  it("reads the exit code from run_command's footer", () => {
    expect(commandExitCode("FAIL x\n\nexit code: 1")).toEqual({ exitCode: 1, ending: "exit 1" });
    expect(commandExitCode("(no output)\n\nexit code: 0\nThe command ran in a sandbox: …")).toEqual({ exitCode: 0, ending: "exit 0" });
    expect(commandExitCode("...\n\ntimed out after 5000 ms; the command and its child processes were killed")).toEqual({
      exitCode: null,
      ending: "timed out",
    });
    expect(commandExitCode("The command could not be started: spawn ENOENT")).toBeUndefined();
  });

  it("fails when the exit code or the summary says so, and reads back from its metadata", () => {
    const run = testRunOf("npx vitest run", { exitCode: 1, ending: "exit 1" }, VITEST, 2345);
    expect(run.status).toBe("fail");
    expect(renderTestRun(run)).toBe(
      [
        "test run failed: npx vitest run",
        "exit 1 · 2.3 s",
        "vitest: 3 failed, 12 passed (15)",
        "failing tests:",
        "- test/cart/discount.test.ts > discount > applies a percentage",
        "- test/cart/discount.test.ts > discount > caps at the order total",
        "- test/cart/discount.test.ts > discount > stacks two codes",
      ].join("\n"),
    );
    expect(storedTestRun(JSON.parse(JSON.stringify({ testRun: run })))).toEqual(run);
    expect(storedTestRun({ tool: "run_command" })).toBeUndefined();
    expect(testRunOf("npm run build", { exitCode: 0, ending: "exit 0" }, "built in 1.2s").status).toBe("pass");
    expect(testRunOf("npm run lint", { exitCode: null, ending: "timed out" }, "").status).toBe("fail");
  });
});
