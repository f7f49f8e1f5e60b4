import { readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const AWS_KEY = "AKIAZ7Q3ABCDEFGH1234";
const ENV_SECRET = "hunter2-super-secret-value";
const PRIVATE_KEY_BODY = "MIIEowIBAAKCAQEAtestonlyprivatekeymaterial0123456789";

let project: TempProject;

beforeEach(() => {
  project = createTempProject({
    "src/app.ts": "export function greetVisitor(name: string): string {\n  return `hello ${name}`;\n}\n",
    "src/cloud.ts": `// uploads reports to the bucket\nconst accessKeyId = "${AWS_KEY}";\nexport function uploadReport() {\n  return accessKeyId.length;\n}\n`,
    ".env": `DATABASE_PASSWORD=${ENV_SECRET}\n`,
    ".env.production": `API_TOKEN=${ENV_SECRET}\n`,
    "deploy/id_rsa": `-----BEGIN RSA PRIVATE KEY-----\n${PRIVATE_KEY_BODY}\n-----END RSA PRIVATE KEY-----\n`,
    "notes/embedded.md": `Key below\n-----BEGIN OPENSSH PRIVATE KEY-----\n${PRIVATE_KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----\nafter the key\n`,
    ".gitignore": "ignored/\n*.log\n",
    "ignored/hidden.ts": "export const ignoredMarker = 'zebrafish';\n",
    "debug.log": "zebrafish log\n",
    ".sylkignore": "private-notes.md\n",
    "private-notes.md": "zebrafish private\n",
    "node_modules/dep/index.js": "module.exports = 'zebrafish';\n",
    "assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]),
    "data/blob.dat2": new Uint8Array([1, 2, 0, 4, 5, 0, 7]),
    "big/huge.txt": `${"aardvark ".repeat(3000)}\n`,
    "legacy/latin1.txt": Buffer.from("Ma\xefs and cr\xe8me br\xfbl\xe9e recipe\n", "latin1"),
  });
  project.write(".sylkrc", JSON.stringify({ index: { maxFileSize: 20_000 } }));
  symlinkSync(join(project.root, "src"), join(project.root, "src", "loop"));
  symlinkSync("..", join(project.root, "big", "parent"));
});

afterEach(() => project.cleanup());

function databaseBytes(): string {
  const projects = join(project.sylkHome, "projects");
  const [hash] = readdirSync(projects);
  const dir = join(projects, hash as string);
  return readdirSync(dir)
    .filter((name) => name.startsWith("vector.db"))
    .map((name) => readFileSync(join(dir, name)).toString("latin1"))
    .join("");
}

describe("indexing safety", () => {
  it("never stores or returns secrets, and skips ignored, binary and oversized files", async () => {
    const run = await runCli(["index", "--yes", "--json"], { cwd: project.root, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonLines(run.stdout).find((event) => event.type === "summary");
    expect(summary).toMatchObject({ failed: 0, interrupted: false });

    const bytes = databaseBytes();
    for (const secret of [AWS_KEY, ENV_SECRET, PRIVATE_KEY_BODY]) expect(bytes).not.toContain(secret);
    expect(bytes).not.toContain("zebrafish");
    expect(bytes).not.toContain("aardvark");

    const status = await runCli(["status", "--json"], { cwd: project.root, env: project.env });
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as { state: string; files: Record<string, number> };
    expect(report.state).toBe("fresh");

    for (const query of [AWS_KEY, ENV_SECRET, PRIVATE_KEY_BODY, "DATABASE_PASSWORD", "zebrafish"]) {
      const search = await runCli(["search", "--json", query], { cwd: project.root, env: project.env });
      expect(search.code, search.stderr).toBe(0);
      const results = JSON.stringify((JSON.parse(search.stdout) as { results: unknown[] }).results);
      for (const secret of [AWS_KEY, ENV_SECRET, PRIVATE_KEY_BODY]) expect(results).not.toContain(secret);
      const paths = (JSON.parse(search.stdout) as { results: Array<{ path: string }> }).results.map((r) => r.path);
      for (const path of paths) {
        expect(path).not.toMatch(/^(\.env|deploy\/id_rsa|ignored\/|debug\.log|private-notes|node_modules|assets|data|big)/);
      }
    }

    // The file holding the key is still indexed, with the key masked in place.
    const cloud = await runCli(["search", "--json", "uploadReport bucket"], { cwd: project.root, env: project.env });
    const hit = (JSON.parse(cloud.stdout) as { results: Array<{ path: string; snippet: string }> }).results[0];
    expect(hit?.path).toBe("src/cloud.ts");
    expect(cloud.stdout).toContain("[REDACTED:aws-access-key-id]");
  });

  it("indexes a megabyte built against the URL rule within its deadline, the credentials masked", async () => {
    // Each `a` of the run started the scheme's pattern again, which read on to the end of the run:
    // quadratic masking kept `sylk index` busy past 300 s on this file.
    project.write("adversarial.txt", `${"a.".repeat(500_000)}\npostgres://admin:s3cretpass@db.example.com/app\n`);
    project.write(".sylkrc", JSON.stringify({ index: { maxFileSize: 2 << 20 } }));
    const started = performance.now();
    const run = await runCli(["index", "--yes", "--json"], { cwd: project.root, env: project.env });
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(jsonLines(run.stdout).find((event) => event.type === "summary")).toMatchObject({ failed: 0 });
    expect(databaseBytes()).not.toContain("s3cretpass");
  }, 120_000);

  it("indexes a non-UTF-8 file and survives symlink loops", async () => {
    const run = await runCli(["index", "--yes"], { cwd: project.root, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    const search = await runCli(["search", "--json", "crème brûlée"], { cwd: project.root, env: project.env });
    const results = (JSON.parse(search.stdout) as { results: Array<{ path: string; snippet: string }> }).results;
    expect(results[0]?.path).toBe("legacy/latin1.txt");
    expect(results[0]?.snippet).toContain("crème brûlée");
    expect(search.stdout).not.toContain("src/loop/");
  });
});
