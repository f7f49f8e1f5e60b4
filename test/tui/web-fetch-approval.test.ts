import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { createAppFixture } from "./app-fixture.js";

/** web_fetch in the TUI: asked about per host, and "don't ask again" covers that host only. */
let site: Server;
let port: number;
let hits: string[];

beforeEach(async () => {
  hits = [];
  site = createServer((request, response) => {
    hits.push(`${request.headers.host}${request.url}`);
    response
      .writeHead(200, { "content-type": "text/html" })
      .end("<html><body><h1>Release notes</h1><p>Version 2 is out.</p></body></html>");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  port = (site.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise((resolve) => site.close(resolve));
});
// Made after the site's hooks, so that its apps close before the site does.
const tui = createAppFixture();

describe("web_fetch's approval", () => {
  it("asks before fetching; 'don't ask again' covers that host for the session, and another host is asked again", async () => {
    const first = `http://127.0.0.1:${port}/notes`;
    tui.server.enqueue(
      reply().toolUse("web_fetch", { url: first }),
      reply().toolUse("web_fetch", { url: `http://127.0.0.1:${port}/again` }),
      reply().toolUse("web_fetch", { url: `http://localhost:${port}/other` }),
      reply().text("Read them."),
    );
    const app = await tui.render({
      files: { "README.md": "# app\n" },
      consent: true,
      env: tui.modelEnv(),
    });
    await app.waitFor(/index: fresh/);
    await app.submit("read the release notes");
    await app.waitFor("Fetch a web page?");
    expect(app.frame()).toContain(`Fetch ${first} from 127.0.0.1`);
    expect(app.frame()).toContain("don't ask again for web_fetch from 127.0.0.1 this session");
    expect(hits).toEqual([]);
    await app.write("2");
    // The second page of the same host is not asked about; the other host is.
    await app.waitFor(`Fetch http://localhost:${port}/other from localhost`);
    expect(hits).toEqual([`127.0.0.1:${port}/notes`, `127.0.0.1:${port}/again`]);
    await app.write("3");
    await app.waitFor("Interrupted");
    expect(hits).toHaveLength(2);
    const results = JSON.stringify(messageRequests(tui.server).map((request) => request.body.messages));
    expect(results).toContain("# Release notes");
  });
});
