import TurndownService from "turndown";

/** Elements that are no text for a reader: code, styles, embedded objects, and the document's head. */
const DROPPED: ReadonlySet<string> = new Set([
  "script",
  "style",
  "noscript",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "template",
  "head",
  "title",
  "form",
]);

let service: TurndownService | undefined;

/**
 * A page's HTML as markdown (turndown, on its built-in DOM): headings,
 * links, lists, code blocks and emphasis kept, what is no text for a reader
 * left out. The title, which is in the head, leads as a heading.
 */
export function htmlToMarkdown(html: string): string {
  service ??= newService();
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, " ").trim();
  const body = service.turndown(html).trim();
  return title && !body.startsWith(`# ${title}`) ? `# ${decodeEntities(title)}\n\n${body}` : body;
}

function newService(): TurndownService {
  const created = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  created.remove((node) => DROPPED.has(node.nodeName.toLowerCase()));
  return created;
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_whole, name: string) =>
    name === "amp" ? "&" : name === "lt" ? "<" : name === "gt" ? ">" : name === "quot" ? '"' : "'",
  );
}
