import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fetchableUrl, fetchPage, isLocalHost, WebFetchError } from "../../../src/agent/tools/web-page.js";

let site: Server;
let base: string;

beforeEach(async () => {
  site = createServer((request, response) => {
    if (request.url === "/big") {
      response.writeHead(200, { "content-type": "text/plain" });
      // An endless body: the reader stops at its bound.
      const chunk = "x".repeat(64 * 1024);
      const write = () => {
        while (response.write(chunk)) {
          /* fill the buffer */
        }
      };
      response.on("drain", write);
      write();
      return;
    }
    if (request.url === "/hang") return; // never answers
    if (request.url === "/image") return response.writeHead(200, { "content-type": "image/png" }).end("PNG");
    if (request.url === "/json") return response.writeHead(200, { "content-type": "application/json" }).end('{"a":1}');
    if (request.url === "/loop") return response.writeHead(302, { location: "/loop" }).end();
    if (request.url === "/latin1")
      return response.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    response.writeHead(404, "Not Found").end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterEach(async () => {
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

const signal = () => new AbortController().signal;
const bounds = { timeoutMs: 2_000, maxBytes: 100_000, maxRedirects: 3 };

describe("fetchPage", () => {
  it("reads at most maxBytes of an endless body and says the rest was dropped", async () => {
    const page = await fetchPage(new URL(`${base}/big`), signal(), bounds);
    expect(page).toMatchObject({ kind: "page", droppedBytes: true });
    expect(page.kind === "page" && page.text.length).toBe(100_000);
  });

  it("gives up on a silent server at its timeout, with a message that says so", async () => {
    await expect(fetchPage(new URL(`${base}/hang`), signal(), { ...bounds, timeoutMs: 300 })).rejects.toThrow(
      /127\.0\.0\.1:\d+ did not answer within 300 ms/,
    );
  });

  it("keeps JSON and decodes a declared charset; refuses what is not text, HTTP errors and endless redirects", async () => {
    expect(await fetchPage(new URL(`${base}/json`), signal(), bounds)).toMatchObject({ text: '{"a":1}', contentType: "application/json" });
    expect(await fetchPage(new URL(`${base}/latin1`), signal(), bounds)).toMatchObject({ text: "café" });
    await expect(fetchPage(new URL(`${base}/image`), signal(), bounds)).rejects.toThrow(/is image\/png, not a text page/);
    await expect(fetchPage(new URL(`${base}/missing`), signal(), bounds)).rejects.toThrow(/answered HTTP 404 Not Found/);
    await expect(fetchPage(new URL(`${base}/loop`), signal(), bounds)).rejects.toThrow(/redirected more than 3 times/);
  });

  it("takes only http and https URLs without credentials", () => {
    expect(fetchableUrl("https://example.com/a").hostname).toBe("example.com");
    expect(() => fetchableUrl("ftp://example.com/")).toThrow(WebFetchError);
    expect(() => fetchableUrl("https://user:pw@example.com/")).toThrow(/user name or password/);
    expect(() => fetchableUrl("example.com")).toThrow(/not a URL/);
  });

  it("refuses a URL that carries a secret-looking value, as written or percent-encoded", () => {
    for (const url of [
      "https://collector.example/docs?q=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
      "https://collector.example/x/ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "https://collector.example/?t=sk%2Dant%2Dapi03%2Dabcdefghijklmnopqrstuvwxyz012345",
    ]) {
      expect(() => fetchableUrl(url), url).toThrow(/looks like a secret/);
    }
    expect(fetchableUrl("https://example.com/search?q=skewed+tokens").hostname).toBe("example.com");
  });
});

describe("isLocalHost", () => {
  it("knows this machine and private networks by the URL's host, however the address is written", () => {
    for (const url of [
      "http://localhost:8080/",
      "http://api.localhost/",
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://10.1.2.3/",
      "http://172.20.0.1/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.100.100.200/",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[fd00::1]/",
      "http://[fe80::1]/",
    ]) {
      expect(isLocalHost(new URL(url).hostname), url).toBe(true);
    }
    for (const url of [
      "https://example.com/",
      "http://8.8.8.8/",
      "http://172.32.0.1/",
      "http://[2606:4700::1111]/",
      "http://localhost.example/",
    ]) {
      expect(isLocalHost(new URL(url).hostname), url).toBe(false);
    }
  });
});
