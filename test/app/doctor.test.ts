import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkConfig, checkIndex, checkNode, checkSandbox, doctorText, runDoctor, type DoctorCheck } from "../../src/app/doctor.js";
import { checkModel } from "../../src/app/model-check.js";
import { loadConfig } from "../../src/config/load-config.js";
import { defaultConfig } from "../../src/config/schema.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { startFakeOpenAIServer } from "../helpers/fake-openai-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** The doctor's checks one by one: each says ok, warning or failed, what it found, and the fix. */

const MINIMUM = [22, 14, 0];

describe("the Node check", () => {
  it.each([
    ["20.19.0", "failed", /older than Sylk needs \(22\.14\.0 or later\)/],
    ["22.13.1", "failed", /older than Sylk needs/],
    ["22.14.0", "ok", /Node 22\.14\.0/],
    ["v23.11.0", "warning", /not a long-term release/],
    ["24.21.0", "ok", /Node 24\.21\.0/],
    ["26.0.0", "ok", /Node 26\.0\.0/],
  ])("Node %s is %s", (version, status, detail) => {
    const check = checkNode(version, MINIMUM);
    expect(check.status).toBe(status);
    expect(check.detail).toMatch(detail);
    if (status !== "ok") expect(check.fix).toMatch(/install Node 22 or 24/);
  });

  it("reads the minimum from package.json's engines.node", () => {
    expect(checkNode("22.13.0").status).toBe("failed");
    expect(checkNode(process.versions.node).status).not.toBe("failed");
  });
});

describe("the sandbox check", () => {
  it("fails where no sandbox can be made, warns when it is turned off, and names what stays readable", () => {
    const unavailable = checkSandbox({ state: "unavailable", reason: "bubblewrap (bwrap) is not installed" });
    expect(unavailable).toMatchObject({ status: "failed", detail: "commands run unsandboxed: bubblewrap (bwrap) is not installed" });
    expect(unavailable.fix).toMatch(/install bubblewrap/);
    expect(checkSandbox({ state: "off" })).toMatchObject({ status: "warning", fix: expect.stringMatching(/sandbox\.enabled to true/) });
    const on = { state: "on", kind: "bubblewrap", hidden: [], kept: [], network: false, networkRules: false } as const;
    expect(checkSandbox(on)).toMatchObject({ status: "ok", detail: expect.stringMatching(/^commands run sandboxed \(bubblewrap/) });
    const kept = checkSandbox({ ...on, kept: [{ path: "/home/u/.aws", reason: "the project is inside it" }] });
    expect(kept.status).toBe("warning");
    expect(kept.detail).toContain("/home/u/.aws is readable by sandboxed commands");
  });
});

describe("the index check", () => {
  it("says what is wrong with the index and that `sylk index` fixes it", () => {
    expect(checkIndex({ state: "fresh" }).status).toBe("ok");
    expect(checkIndex({ state: "missing" })).toMatchObject({ status: "warning", fix: "run `sylk index`" });
    expect(checkIndex({ state: "stale", stale: { added: 2, changed: 1, deleted: 0, directories: 1 } })).toMatchObject({
      status: "warning",
      detail: "stale: 2 added, 1 changed, 0 removed since the last index",
      fix: "run `sylk index`",
    });
    const damaged = checkIndex({
      state: "damaged",
      damaged: [{ index: "code", part: "documents", problem: "its checksum does not match" }],
    });
    expect(damaged.status).toBe("failed");
    expect(damaged.detail).toBe(
      "damaged: the code full-text snapshot (documents: its checksum does not match); searches answer from vectors alone",
    );
    expect(damaged.fix).toMatch(/^run `sylk index`/);
    expect(checkIndex({ state: "busy", doing: "indexing 3/10" })).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/^indexing 3\/10/),
    });
    expect(checkIndex({ state: "off" }).status).toBe("warning");
  });
});

describe("the config check", () => {
  let project: TempProject;
  beforeEach(() => (project = createTempProject()));
  afterEach(() => project.cleanup());

  const files = () => ({ user: `${project.env.HOME}/.sylkrc`, project: `${project.root}/.sylkrc` });
  const load = () => loadConfig({ projectRoot: project.root, env: project.env });

  it("names the files read, and warns about a project's settings an untrusted folder ignores", () => {
    expect(checkConfig(load(), files())).toMatchObject({ status: "ok", detail: "no .sylkrc: the defaults" });
    project.write(".sylkrc", JSON.stringify({ index: { maxFileSize: 2048 }, permissions: { allow: ["run_command(*)"] } }));
    const check = checkConfig(load(), files());
    expect(check.status).toBe("warning");
    expect(check.detail).toContain(`read ${project.root}/.sylkrc`);
    expect(check.detail).toContain("this folder is not trusted, so these settings");
    expect(check.detail).toContain("permissions.allow");
    expect(check.fix).toMatch(/sylk trust \./);
  });

  it("fails on a malformed file, with the file and the place", () => {
    project.write(".sylkrc", "{ index: ");
    let error: Error | undefined;
    try {
      load();
    } catch (caught) {
      error = caught as Error;
    }
    const check = checkConfig(error!, files());
    expect(check.status).toBe("failed");
    expect(check.detail).toMatch(/Malformed config file .*\.sylkrc at line 1/);
  });
});

describe("the model check", () => {
  let server: FakeAnthropicServer;
  beforeEach(async () => (server = await startFakeAnthropicServer()));
  afterEach(() => server.close());

  const anthropic = (patch: Partial<ReturnType<typeof defaultConfig>["model"]> = {}) => ({
    ...defaultConfig().model,
    name: "claude-sonnet-4-5",
    ...patch,
  });
  const env = () => ({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl });

  it("counts tokens through the real SDK: ok, with the model's name and the time it took, and no message generated", async () => {
    const check = await checkModel(anthropic(), env());
    expect(check).toMatchObject({ status: "ok", detail: expect.stringMatching(/^claude-sonnet-4-5 \(anthropic\) answered in \d+ ms$/) });
    expect(server.requests.map((request) => request.path)).toEqual(["/v1/messages/count_tokens"]);
    expect(server.requests[0]?.body).toMatchObject({ model: "claude-sonnet-4-5" });
  });

  it("a refused key is a failed check, with the API's words", async () => {
    server.enqueueCountTokens(reply().status(401, { message: "invalid x-api-key" }));
    const check = await checkModel(anthropic(), env());
    expect(check.status).toBe("failed");
    expect(check.detail).toMatch(/rejected the API key \(invalid x-api-key\)/);
    expect(check.fix).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("an endpoint that does not answer in time is a failed check that says how long it waited", async () => {
    server.enqueueCountTokens(reply().hang());
    const check = await checkModel(anthropic(), env(), 300);
    expect(check).toMatchObject({ status: "failed", detail: "claude-sonnet-4-5 (anthropic): no answer within 0.3 s" });
  });

  it("an endpoint nothing listens on is a failed check naming it", async () => {
    const url = server.baseUrl;
    await server.close();
    const check = await checkModel(anthropic(), { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: url });
    expect(check.status).toBe("failed");
    expect(check.detail).toContain(`Could not reach the model at ${url}`);
  });

  it("without a key nothing is sent, and the fix names the variable; a model turned off on purpose is a warning", async () => {
    const check = await checkModel(anthropic(), { ANTHROPIC_BASE_URL: server.baseUrl });
    expect(check).toMatchObject({ status: "failed", detail: expect.stringContaining("ANTHROPIC_API_KEY is not set") });
    expect(check.fix).toMatch(/^export ANTHROPIC_API_KEY=/);
    expect((await checkModel(anthropic({ provider: "none" }), env())).status).toBe("warning");
    expect(server.requests).toEqual([]);
  });
});

describe("the model check on an OpenAI-compatible server", () => {
  it("asks for the model list through the real SDK, the one call every such server answers without generating", async () => {
    const server = await startFakeOpenAIServer();
    try {
      const config = { ...defaultConfig().model, provider: "openai-compatible" as const, name: "local-model", baseUrl: server.baseUrl };
      const check = await checkModel(config, {});
      expect(check).toMatchObject({
        status: "ok",
        detail: expect.stringMatching(/^local-model \(openai-compatible\) answered in \d+ ms$/),
      });
      expect(server.requests.map((request) => request.path)).toEqual(["/v1/models"]);
    } finally {
      await server.close();
    }
  });
});

describe("the report", () => {
  it("passes with warnings, fails with one failed check, and prints each fix under its check", async () => {
    const project = createTempProject();
    try {
      const config = loadConfig({ projectRoot: project.root, env: project.env });
      const report = await runDoctor({
        root: project.root,
        env: { ...project.env, ANTHROPIC_API_KEY: "" },
        config,
        configFiles: { user: `${project.env.HOME}/.sylkrc`, project: `${project.root}/.sylkrc` },
        index: { state: "missing" },
        sandbox: { state: "off" },
      });
      expect(report.checks.map((check: DoctorCheck) => [check.name, check.status])).toEqual([
        ["node", "ok"],
        ["sandbox", "warning"],
        ["index", "warning"],
        ["model", "failed"],
        ["config", "ok"],
      ]);
      expect(report.passed).toBe(false);
      const text = doctorText(report);
      expect(text).toMatch(/^warning index {4}missing: .*\n {17}fix: run `sylk index`$/m);
      expect(text).toMatch(/^FAILED {2}model {4}/m);
      expect(text.split("\n").at(-1)).toBe("1 check failed, 2 with warnings.");
    } finally {
      project.cleanup();
    }
  });
});
