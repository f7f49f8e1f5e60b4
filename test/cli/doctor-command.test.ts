import { existsSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DoctorReport } from "../../src/app/doctor.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** `sylk doctor` as a user runs it: the same checks as /doctor, text or JSON, exit 1 when one fails. */

let server: FakeAnthropicServer;
let project: TempProject;

beforeAll(async () => {
  server = await startFakeAnthropicServer();
});
afterAll(() => server.close());
beforeEach(() => {
  project = createTempProject({ "src/app.ts": "export function main() {\n  return 1;\n}\n" });
});
afterEach(() => project.cleanup());

const withModel = () => ({ ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl });
const doctor = (args: string[] = [], env = withModel()) => runCli(["doctor", ...args], { cwd: project.root, env, timeoutMs: 30_000 });
const statuses = (report: DoctorReport) => Object.fromEntries(report.checks.map((check) => [check.name, check.status]));

describe("sylk doctor", () => {
  it("passes on an indexed project whose model answers, and says so check by check", async () => {
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const before = server.requests.length;
    const run = await doctor();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ok {6}node {5}Node \d+\.\d+\.\d+/m);
    expect(run.stdout).toMatch(/^ok {6}index {4}fresh: every file is indexed as it is now$/m);
    expect(run.stdout).toMatch(/^ok {6}model {4}claude-.* \(anthropic\) answered in \d+ ms$/m);
    expect(run.stdout).toMatch(/^ok {6}config {3}no \.sylkrc: the defaults$/m);
    expect(run.stdout.trim().split("\n").at(-1)).toMatch(/^All checks passed/);
    // One token count: nothing was generated.
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(["/v1/messages/count_tokens"]);
  });

  it("--json: a stale index is a warning with its fix, and the run still passes", async () => {
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    project.write("src/new.ts", "export const added = true;\n");
    const run = await doctor(["--json"]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as DoctorReport;
    expect(report.passed).toBe(true);
    expect(report.checks.find((check) => check.name === "index")).toEqual({
      name: "index",
      status: "warning",
      detail: "stale: 1 added, 0 changed, 0 removed since the last index",
      fix: "run `sylk index`",
    });
  });

  it("a key the API refuses fails the run (exit 1), with the error in words; a missing index is not created", async () => {
    server.enqueueCountTokens(reply().status(401, { message: "invalid x-api-key" }));
    const run = await doctor(["--json"]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as DoctorReport;
    expect(statuses(report)).toMatchObject({ index: "warning", model: "failed" });
    expect(report.checks.find((check) => check.name === "model")?.detail).toMatch(/rejected the API key \(invalid x-api-key\)/);
    expect(existsSync(resolveProjectPaths(project.root, project.env).database)).toBe(false);
  });

  it("a malformed .sylkrc fails the config check with the file and place; what needs the configuration is not checked", async () => {
    project.write(".sylkrc", '{ "model": { "provider": "anthropic", } ');
    const before = server.requests.length;
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^FAILED {2}config {3}Malformed config file .*\.sylkrc at line 1/m);
    expect(run.stdout).toMatch(/^FAILED {2}model {4}not checked: the configuration did not load$/m);
    expect(server.requests.length).toBe(before);
  });
});
