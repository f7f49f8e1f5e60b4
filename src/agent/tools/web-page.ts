import { BlockList, isIP } from "node:net";
import { markdownOffThread } from "./html-thread.js";
import { errorMessage } from "../../errors.js";
import { maskSecrets } from "../../security/secrets.js";

/** The bounds of one fetch. */
export interface FetchBounds {
  timeoutMs: number;
  /** Bytes of the body read; the rest is dropped. */
  maxBytes: number;
  /** Redirects to the same origin followed; one to another origin is never followed. */
  maxRedirects: number;
}

export const DEFAULT_FETCH_BOUNDS: FetchBounds = { timeoutMs: 30_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };

/** A page read: its text (HTML as markdown), and what was left of it. */
export interface FetchedPage {
  kind: "page";
  /** The URL the page came from, after same-origin redirects. */
  url: string;
  status: number;
  contentType: string;
  text: string;
  /** Bytes past `maxBytes`, not read. */
  droppedBytes: boolean;
}

/** A redirect to another origin: reported, not followed. */
export interface CrossOriginRedirect {
  kind: "redirect";
  from: string;
  to: string;
  status: number;
}

/** A fetch that failed, with a message the model and the user can act on. */
export class WebFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebFetchError";
  }
}

/** The URL, if Sylk fetches it at all: http and https only, no credentials or secret-looking values in it. */
export function fetchableUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebFetchError(`"${text}" is not a URL: give an absolute http:// or https:// URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new WebFetchError(`Only http and https URLs are fetched, not ${url.protocol.replace(/:$/, "")}.`);
  if (url.username || url.password) throw new WebFetchError("A URL with a user name or password in it is not fetched.");
  // A fetch sends its URL to the host: a key put in a query string is sent whoever is asked.
  const secrets = maskSecrets(decodedOrSelf(url.href)).findings;
  if (secrets.length > 0) throw new WebFetchError(`The URL holds what looks like a secret (${secrets[0]}); it is not fetched.`);
  return url;
}

function decodedOrSelf(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Loopback, private, link-local (cloud metadata at 169.254.169.254) and other non-public ranges. */
const LOCAL_ADDRESSES = (() => {
  const list = new BlockList();
  for (const [network, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.168.0.0", 16],
  ] as const)
    list.addSubnet(network, prefix, "ipv4");
  for (const [network, prefix] of [
    ["::", 127],
    ["fc00::", 7],
    ["fe80::", 10],
  ] as const)
    list.addSubnet(network, prefix, "ipv6");
  return list;
})();

/**
 * Whether a URL's host names this machine or a private network by itself:
 * `localhost`, a loopback, private or link-local address (IPv4, IPv6, or
 * IPv4 inside IPv6). Such a fetch reaches what the web cannot (a local
 * service, a cloud's metadata endpoint), so bypass mode does not allow it
 * on its own. A public name that resolves to such an address is not seen
 * here.
 */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const family = isIP(host);
  if (family === 4) return LOCAL_ADDRESSES.check(host, "ipv4");
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1] ?? mappedFromHex(host);
  return mapped !== undefined ? LOCAL_ADDRESSES.check(mapped, "ipv4") : LOCAL_ADDRESSES.check(host, "ipv6");
}

/** `::ffff:7f00:1` (how the URL parser writes `::ffff:127.0.0.1`) as its IPv4 address. */
function mappedFromHex(host: string): string | undefined {
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!match) return undefined;
  const high = Number.parseInt(match[1] as string, 16);
  const low = Number.parseInt(match[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/**
 * GETs a page within the bounds. Redirects are handled here, not by the
 * client: one to the same origin is followed (up to `maxRedirects`), one to
 * another origin ends the fetch and is returned, for the model to fetch
 * only if it should (and the user to allow that host).
 */
export async function fetchPage(
  start: URL,
  signal: AbortSignal,
  bounds: FetchBounds = DEFAULT_FETCH_BOUNDS,
): Promise<FetchedPage | CrossOriginRedirect> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(bounds.timeoutMs)]);
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const response = await request(url, deadline, bounds.timeoutMs);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== url.origin) return { kind: "redirect", from: url.href, to: next.href, status: response.status };
      if (redirects >= bounds.maxRedirects) throw new WebFetchError(`${start.href} redirected more than ${bounds.maxRedirects} times.`);
      url = fetchableUrl(next.href);
      continue;
    }
    if (response.status >= 400) {
      await response.body?.cancel();
      throw new WebFetchError(`${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`);
    }
    const contentType = (response.headers.get("content-type") ?? "").toLowerCase();
    const kind = textKind(contentType);
    if (kind === undefined) {
      await response.body?.cancel();
      throw new WebFetchError(
        `${url.href} is ${contentType.split(";")[0]}, not a text page: web_fetch reads HTML, text, markdown and JSON.`,
      );
    }
    const body = await readBounded(response, bounds.maxBytes, deadline, bounds.timeoutMs);
    const decoded = new TextDecoder(charsetOf(contentType)).decode(body.bytes);
    return {
      kind: "page",
      url: url.href,
      status: response.status,
      contentType: contentType.split(";")[0]?.trim() || "text/plain",
      text: kind === "html" ? await markdown(url, decoded, deadline, bounds.timeoutMs) : decoded,
      droppedBytes: body.dropped,
    };
  }
}

/** The HTML as markdown, within what is left of the fetch's time. */
async function markdown(url: URL, html: string, signal: AbortSignal, timeoutMs: number): Promise<string> {
  try {
    return await markdownOffThread(html, signal);
  } catch (error) {
    if (!signal.aborted) throw new WebFetchError(errorMessage(error));
    const timedOut = signal.reason instanceof DOMException && signal.reason.name === "TimeoutError";
    throw new WebFetchError(
      timedOut ? `Reading the page of ${url.host} took longer than ${duration(timeoutMs)}.` : "The fetch was cancelled.",
    );
  }
}

async function request(url: URL, signal: AbortSignal, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, {
      redirect: "manual",
      signal,
      headers: { accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1", "user-agent": "sylk-web-fetch" },
    });
  } catch (error) {
    throw new WebFetchError(failureMessage(url, error, signal, timeoutMs));
  }
}

/** Why the request did not get an answer, in words: the name, the connection, the time, or the user. */
function failureMessage(url: URL, error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof DOMException && reason.name === "TimeoutError")
      return `${url.host} did not answer within ${duration(timeoutMs)}.`;
    return "The fetch was cancelled.";
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? "";
  const offline = "Sylk's machine may be offline, or the host may be down.";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `${url.hostname} was not found (DNS: ${code}). ${offline}`;
  if (code === "ECONNREFUSED")
    return `${url.host} refused the connection (ECONNREFUSED): nothing listens there, or ${offline.toLowerCase()}`;
  if (code === "ENETUNREACH" || code === "EHOSTUNREACH") return `${url.host} cannot be reached (${code}). ${offline}`;
  if (code === "ECONNRESET") return `${url.host} closed the connection (ECONNRESET).`;
  return `${url.href} could not be fetched: ${cause?.message ?? errorMessage(error)}. ${offline}`;
}

function duration(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}

/** How a content type is read: HTML made markdown, text kept; undefined for what is not text. */
function textKind(contentType: string): "html" | "text" | undefined {
  const type = contentType.split(";")[0]?.trim() ?? "";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "" || type.startsWith("text/")) return "text";
  if (/^application\/([\w.-]+\+)?(json|xml)$/.test(type) || type === "application/javascript") return "text";
  return undefined;
}

function charsetOf(contentType: string): string {
  const charset = /charset="?([\w-]+)"?/.exec(contentType)?.[1]?.toLowerCase() ?? "utf-8";
  try {
    new TextDecoder(charset);
    return charset;
  } catch {
    return "utf-8";
  }
}

/** The body up to `maxBytes`; the stream is cancelled there, so a huge or endless body costs no more. */
async function readBounded(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ bytes: Uint8Array; dropped: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), dropped: false };
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: concat(parts, size), dropped: false };
      const room = maxBytes - size;
      if (value.length > room) {
        parts.push(value.subarray(0, room));
        await reader.cancel();
        return { bytes: concat(parts, maxBytes), dropped: true };
      }
      parts.push(value);
      size += value.length;
    }
  } catch (error) {
    throw new WebFetchError(failureMessage(new URL(response.url || "http://page"), error, signal, timeoutMs));
  }
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
