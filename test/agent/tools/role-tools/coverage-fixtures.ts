/** Fixtures as the tools write them, trimmed to a few files. */
export const ISTANBUL_SUMMARY = JSON.stringify({
  total: { lines: { total: 60, covered: 45, skipped: 0, pct: 75 }, statements: { total: 64, covered: 47, skipped: 0, pct: 73.43 } },
  "/home/dev/shop/src/cart.ts": {
    lines: { total: 40, covered: 28, skipped: 0, pct: 70 },
    functions: { total: 6, covered: 4, skipped: 0, pct: 66.66 },
    statements: { total: 42, covered: 29, skipped: 0, pct: 69.04 },
    branches: { total: 10, covered: 6, skipped: 0, pct: 60 },
  },
  "/home/dev/shop/src/money.ts": {
    lines: { total: 20, covered: 17, skipped: 0, pct: 85 },
    functions: { total: 3, covered: 3, skipped: 0, pct: 100 },
    statements: { total: 22, covered: 18, skipped: 0, pct: 81.81 },
    branches: { total: 4, covered: 3, skipped: 0, pct: 75 },
  },
});

export const ISTANBUL_FINAL = JSON.stringify({
  "/home/dev/shop/src/money.ts": {
    path: "/home/dev/shop/src/money.ts",
    statementMap: {
      "0": { start: { line: 1, column: 0 }, end: { line: 1, column: 40 } },
      "1": { start: { line: 3, column: 2 }, end: { line: 3, column: 30 } },
      "2": { start: { line: 4, column: 2 }, end: { line: 6, column: 3 } },
      "3": { start: { line: 5, column: 4 }, end: { line: 5, column: 20 } },
      "4": { start: { line: 6, column: 4 }, end: { line: 6, column: 12 } },
      "5": { start: { line: 6, column: 14 }, end: { line: 6, column: 30 } },
      "6": { start: { line: 9, column: 2 }, end: { line: 9, column: 18 } },
    },
    fnMap: {},
    branchMap: {},
    s: { "0": 1, "1": 4, "2": 4, "3": 0, "4": 0, "5": 2, "6": 0 },
    f: {},
    b: {},
  },
});

export const LCOV = `TN:
SF:src/cart.ts
FN:3,addItem
FNDA:5,addItem
DA:3,5
DA:4,5
DA:5,0
DA:6,0
DA:7,0
DA:9,5
DA:12,0
LF:7
LH:3
end_of_record
TN:
SF:src/money.ts
DA:1,1
DA:2,1
LF:2
LH:2
end_of_record
`;

export const GO_PROFILE = `mode: set
example.com/shop/cart/cart.go:10.30,12.2 1 1
example.com/shop/cart/cart.go:14.40,15.12 1 1
example.com/shop/cart/cart.go:15.12,17.3 1 0
example.com/shop/cart/cart.go:18.2,18.15 1 1
example.com/shop/cart/cart.go:21.25,23.2 2 0
example.com/shop/money/money.go:5.20,7.2 1 1
`;

export const COBERTURA = `<?xml version="1.0" ?>
<coverage version="7.5.1" timestamp="1732540000000" lines-valid="9" lines-covered="6" line-rate="0.6667" branches-covered="0" branches-valid="0" branch-rate="0" complexity="0">
	<sources>
		<source>/home/dev/api</source>
	</sources>
	<packages>
		<package name="app" line-rate="0.6667" branch-rate="0" complexity="0">
			<classes>
				<class name="users.py" filename="app/users.py" complexity="0" line-rate="0.5" branch-rate="0">
					<methods/>
					<lines>
						<line number="1" hits="1"/>
						<line number="2" hits="1"/>
						<line number="5" hits="0"/>
						<line number="6" hits="0"/>
						<line number="8" hits="1"/>
						<line number="9" hits="0"/>
					</lines>
				</class>
				<class name="__init__.py" filename="app/__init__.py" complexity="0" line-rate="1" branch-rate="0">
					<methods/>
					<lines>
						<line number="1" hits="3"/>
						<line number="2" hits="3"/>
						<line number="3" hits="1"/>
					</lines>
				</class>
			</classes>
		</package>
	</packages>
</coverage>
`;
