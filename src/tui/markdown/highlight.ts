import type { Root, RootContent } from "hast";

/** A run of code text and the highlight.js classes around it, outermost first (`string`, `subst`). */
export interface CodeSpan {
  text: string;
  kinds: readonly string[];
}

type Lowlight = { highlight(language: string, value: string): Root; registered(language: string): boolean };

let lowlight: Lowlight | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads highlight.js's common languages in the background. Called once the
 * screen is up, so its ~37 grammars are not on the launch path; code shown
 * before it finished is printed plain.
 */
export function preloadHighlighter(): Promise<void> {
  loading ??= import("lowlight").then(({ common, createLowlight }) => {
    lowlight = createLowlight(common);
  });
  return loading;
}

/** Common names models write after a fence that highlight.js knows by another. */
const ALIASES: Record<string, string> = {
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  ts: "typescript",
  tsx: "typescript",
  js: "javascript",
  jsx: "javascript",
  py: "python",
  rs: "rust",
  yml: "yaml",
  md: "markdown",
};

/**
 * The code's lines as coloured spans, or undefined when the language is not
 * known (or the highlighter not loaded yet): the code is then shown plain.
 */
export function highlightCode(code: string, language: string | undefined): CodeSpan[][] | undefined {
  const name = language ? (ALIASES[language.toLowerCase()] ?? language.toLowerCase()) : undefined;
  if (!lowlight || !name || !lowlight.registered(name)) return undefined;
  let tree: Root;
  try {
    tree = lowlight.highlight(name, code);
  } catch {
    return undefined;
  }
  const lines: CodeSpan[][] = [[]];
  const walk = (nodes: RootContent[], kinds: readonly string[]) => {
    for (const node of nodes) {
      if (node.type === "text") {
        const parts = node.value.split("\n");
        parts.forEach((part, index) => {
          if (index > 0) lines.push([]);
          if (part) lines[lines.length - 1]?.push({ text: part, kinds });
        });
      } else if (node.type === "element") {
        const classes = node.properties.className;
        const own = Array.isArray(classes) ? String(classes[0] ?? "").replace(/^hljs-/, "") : "";
        walk(node.children, own ? [...kinds, own] : kinds);
      }
    }
  };
  walk(tree.children, []);
  return lines;
}
