import * as z from "zod";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import { defineTool, toolDescription, ToolError, type ToolDefinition } from "./tool.js";
import { DEFAULT_FETCH_BOUNDS, fetchableUrl, fetchPage, type FetchBounds, isLocalHost, WebFetchError } from "./web-page.js";

/** A fetched page in parts, for the store: each part an entry, the parts not shown behind references. */
export interface PageToKeep {
  url: string;
  contentType: string;
  parts: string[];
  /** Parts shown in the result: the first `shown`. */
  shown: number;
}

export interface WebFetchDeps {
  /** Stores every part as a `web_fetch` entry and returns the markers of references over the parts not shown, in order. */
  keep(page: PageToKeep): Promise<string[]>;
  bounds?: FetchBounds;
}

/** Tokens per stored part, and per reference over the parts not shown (what retrieve_context returns at once, with room). */
export const PART_TOKENS = 2_000;
export const PARTS_PER_REFERENCE = 4;
/** The most of a page kept, in characters (about 100k tokens); past it the page is cut and the result says so. */
const MAX_KEPT_CHARS = 400_000;

const integer = new Intl.NumberFormat("en-US");

/**
 * `web_fetch`: a page from the web, read as markdown and bounded. Its kind,
 * `network`, is asked about per host unless a `web_fetch(domain:…)` rule
 * allows it; the sandbox's network setting is about commands and does not
 * apply. The whole page is stored, so what the result leaves out stays
 * retrievable.
 */
export function createWebFetchTool(deps: WebFetchDeps): ToolDefinition {
  return defineTool({
    name: "web_fetch",
    description: toolDescription(import.meta.url, "web-fetch.txt"),
    schema: z.strictObject({
      url: z.string().min(1).describe("An absolute http:// or https:// URL."),
      max_tokens: z.number().int().min(500).max(10_000).default(4_000).describe("Tokens of the page in the result (500–10000)."),
    }),
    kind: "network",
    // A URL Sylk never fetches (another scheme, credentials in it) is refused here, before anyone is asked.
    targets: (input) => {
      const url = checkedUrl(input.url);
      return { fetch: { url: url.href, host: url.hostname, ...(isLocalHost(url.hostname) ? { local: true as const } : {}) } };
    },
    async execute(input, context) {
      let url: URL;
      let fetched: Awaited<ReturnType<typeof fetchPage>>;
      try {
        url = checkedUrl(input.url);
        fetched = await fetchPage(url, context.signal, deps.bounds ?? DEFAULT_FETCH_BOUNDS);
      } catch (error) {
        if (error instanceof WebFetchError) throw new ToolError(error.message);
        throw error;
      }
      if (fetched.kind === "redirect") {
        return {
          output: `${fetched.from} redirects (HTTP ${fetched.status}) to another host: ${fetched.to}\nIt was not followed. Fetch that URL with web_fetch if it is the page you want.`,
          display: `redirect to ${new URL(fetched.to).host}, not followed`,
        };
      }
      const cut = fetched.text.length > MAX_KEPT_CHARS;
      const text = cut ? fetched.text.slice(0, MAX_KEPT_CHARS) : fetched.text;
      const partTokens = Math.min(PART_TOKENS, input.max_tokens);
      const parts = splitIntoParts(text, partTokens);
      const shown = Math.max(1, Math.floor(input.max_tokens / partTokens));
      const markers = await deps.keep({ url: fetched.url, contentType: fetched.contentType, parts, shown });
      const tokens = estimateTokens(text);
      const shownParts = parts.slice(0, shown);
      const rest = parts.length > shown ? `, the first ${integer.format(estimateTokens(shownParts.join("")))} shown` : "";
      const dropped = [
        ...(fetched.droppedBytes
          ? [`the page was longer than ${integer.format(DEFAULT_FETCH_BOUNDS.maxBytes)} bytes: the rest was not read`]
          : []),
        ...(cut ? [`only its first ${integer.format(MAX_KEPT_CHARS)} characters were kept`] : []),
      ];
      const output = [
        `${fetched.url} (${fetched.contentType}, ${integer.format(tokens)} tokens${rest})`,
        "",
        shownParts.join(""),
        ...(markers.length > 0 ? ["", "The rest of the page, stored:", ...markers] : []),
        ...(dropped.length > 0 ? ["", `[${dropped.join("; ")}]`] : []),
      ].join("\n");
      return {
        output,
        display: `${new URL(fetched.url).host}: ${integer.format(tokens)} tokens${parts.length > shown ? ` (${shown} of ${parts.length} parts shown)` : ""}`,
      };
    },
  });
}

function checkedUrl(text: string): URL {
  try {
    return fetchableUrl(text);
  } catch (error) {
    if (error instanceof WebFetchError) throw new ToolError(error.message);
    throw error;
  }
}

/** The text in parts of about `tokens` each, cut at line ends where a line allows (a longer line is cut where it must). */
export function splitIntoParts(text: string, tokens: number): string[] {
  const maxChars = tokens * 4;
  const parts: string[] = [];
  let current = "";
  for (const line of text.split(/(?<=\n)/)) {
    let rest = line;
    while (current.length + rest.length > maxChars) {
      if (current !== "") {
        parts.push(current);
        current = "";
        continue;
      }
      parts.push(rest.slice(0, maxChars));
      rest = rest.slice(maxChars);
    }
    current += rest;
  }
  if (current !== "" || parts.length === 0) parts.push(current);
  return parts;
}
