import { Box, Text } from "ink";
import { lexer, type Token, type Tokens } from "marked";
import { useMemo, type ReactNode } from "react";
import stringWidth from "string-width";
import { visible } from "../../format/visible-text.js";
import { useTerminalWidth } from "../hooks/use-terminal-width.js";
import { useTheme, type Theme } from "../theme.js";
import { highlightCode } from "./highlight.js";

/**
 * An answer's markdown drawn for the terminal: headings, emphasis, inline
 * code, highlighted code blocks, lists, quotes, rules and tables. Code is
 * neither indented nor boxed, so that what is copied from the screen runs.
 * Colours come from the theme (none with NO_COLOR); bold and italic stay.
 * The model's control characters are shown escaped before the markdown is
 * read: the renderer's own styles still apply, and no escape sequence of the
 * model's reaches the terminal (every escape is a backslash and a letter,
 * which markdown leaves as it is). Tabs become spaces at 4-column stops, as
 * markdown reads them.
 */
export function MarkdownView({ text }: { text: string }) {
  const theme = useTheme();
  const columns = useTerminalWidth();
  const blocks = useMemo(() => lexer(visible(text)).filter((token) => token.type !== "space"), [text]);
  return (
    <Box flexDirection="column">
      {blocks.map((token, index) => (
        <Box key={index} marginTop={index > 0 ? 1 : 0} flexDirection="column">
          <Block token={token} theme={theme} width={Math.max(20, columns - 6)} />
        </Box>
      ))}
    </Box>
  );
}

function Block({ token, theme, width }: { token: Token; theme: Theme; width: number }): ReactNode {
  switch (token.type) {
    case "heading":
      return (
        <Text bold color={theme.heading} underline={token.depth === 1}>
          {inline(token.tokens ?? [], theme)}
        </Text>
      );
    case "paragraph":
      return <Text>{inline(token.tokens ?? [], theme)}</Text>;
    case "code":
      return <CodeBlock code={(token as Tokens.Code).text} language={(token as Tokens.Code).lang} theme={theme} />;
    case "list":
      return <List list={token as Tokens.List} theme={theme} width={width} />;
    case "blockquote":
      return (
        <Box
          borderStyle="single"
          borderTop={false}
          borderRight={false}
          borderBottom={false}
          borderDimColor
          paddingLeft={1}
          flexDirection="column"
        >
          {((token as Tokens.Blockquote).tokens ?? [])
            .filter((inner) => inner.type !== "space")
            .map((inner, index) => (
              <Text key={index} dimColor>
                {inner.type === "paragraph" ? inline(inner.tokens ?? [], theme) : visible(inner.raw.trimEnd())}
              </Text>
            ))}
        </Box>
      );
    case "hr":
      return <Text dimColor>{"─".repeat(Math.min(width, 60))}</Text>;
    case "table":
      return <Table table={token as Tokens.Table} theme={theme} width={width} />;
    case "text":
      return <Text>{"tokens" in token && token.tokens ? inline(token.tokens, theme) : visible(token.raw)}</Text>;
    default:
      return <Text>{visible(token.raw.trimEnd())}</Text>;
  }
}

function CodeBlock({ code, language, theme }: { code: string; language: string | undefined; theme: Theme }) {
  const lines = highlightCode(code, language?.split(/\s/)[0]);
  if (!lines) return <Text>{visible(code)}</Text>;
  return (
    <Box flexDirection="column">
      {lines.map((spans, index) => (
        <Text key={index}>
          {spans.length === 0
            ? " "
            : spans.map((span, at) => (
                <Text key={at} color={colourOf(span.kinds, theme)}>
                  {visible(span.text)}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
}

/** The innermost highlight class the theme colours: `${name}` inside a template string keeps the string's colour only where `subst` has none. */
function colourOf(kinds: readonly string[], theme: Theme): string | undefined {
  for (let index = kinds.length - 1; index >= 0; index--) {
    const colour = theme.syntax(kinds[index]);
    if (colour !== undefined) return colour;
  }
  return undefined;
}

function List({ list, theme, width, depth = 0 }: { list: Tokens.List; theme: Theme; width: number; depth?: number }) {
  const start = typeof list.start === "number" ? list.start : 1;
  const bullet = (index: number) => (list.ordered ? `${start + index}.` : depth % 2 === 0 ? "•" : "◦");
  return (
    <Box flexDirection="column">
      {list.items.map((item, index) => (
        <Box key={index} flexDirection="row">
          <Box flexShrink={0} marginRight={1}>
            <Text color={theme.accent}>{bullet(index)}</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            {item.task && <Text>{item.checked ? "[x]" : "[ ]"}</Text>}
            {item.tokens
              .filter((inner) => inner.type !== "space" && inner.type !== "checkbox")
              .map((inner, at) =>
                inner.type === "list" ? (
                  <List key={at} list={inner as Tokens.List} theme={theme} width={width - 2} depth={depth + 1} />
                ) : (
                  <Block key={at} token={inner} theme={theme} width={width - 2} />
                ),
              )}
          </Box>
        </Box>
      ))}
    </Box>
  );
}

/**
 * A table with aligned columns and box-drawing rules when it fits the
 * terminal; otherwise each row as `header: value` lines, which wrap cleanly
 * where a too-wide grid would break apart.
 */
function Table({ table, theme, width }: { table: Tokens.Table; theme: Theme; width: number }) {
  const header = table.header.map((cell) => plainText(cell.tokens));
  const rows = table.rows.map((row) => row.map((cell) => plainText(cell.tokens)));
  const widths = header.map((title, column) => Math.max(stringWidth(title), ...rows.map((row) => stringWidth(row[column] ?? ""))));
  const total = widths.reduce((sum, value) => sum + value, 0) + 3 * widths.length + 1;
  if (total > width) {
    return (
      <Box flexDirection="column">
        {rows.map((row, index) => (
          <Box key={index} flexDirection="column" marginTop={index > 0 ? 1 : 0}>
            {row.map((value, column) => (
              <Text key={column}>
                <Text bold>{header[column]}:</Text> {value}
              </Text>
            ))}
          </Box>
        ))}
      </Box>
    );
  }
  const pad = (value: string, column: number) => {
    const room = (widths[column] ?? 0) - stringWidth(value);
    const align = table.align[column];
    if (align === "right") return " ".repeat(room) + value;
    if (align === "center") return " ".repeat(Math.floor(room / 2)) + value + " ".repeat(Math.ceil(room / 2));
    return value + " ".repeat(room);
  };
  const rule = (left: string, middle: string, right: string) => left + widths.map((value) => "─".repeat(value + 2)).join(middle) + right;
  return (
    <Box flexDirection="column">
      <Text dimColor>{rule("┌", "┬", "┐")}</Text>
      <Text>
        <Text dimColor>│</Text>
        {header.map((title, column) => (
          <Text key={column}>
            {" "}
            <Text bold color={theme.heading}>
              {pad(title, column)}
            </Text>{" "}
            <Text dimColor>│</Text>
          </Text>
        ))}
      </Text>
      <Text dimColor>{rule("├", "┼", "┤")}</Text>
      {rows.map((row, index) => (
        <Text key={index}>
          <Text dimColor>│</Text>
          {row.map((value, column) => (
            <Text key={column}>
              {" "}
              {pad(value, column)} <Text dimColor>│</Text>
            </Text>
          ))}
        </Text>
      ))}
      <Text dimColor>{rule("└", "┴", "┘")}</Text>
    </Box>
  );
}

/** Inline tokens as nested <Text>: emphasis as attributes, inline code and links coloured. */
function inline(tokens: readonly Token[], theme: Theme): ReactNode[] {
  return tokens.map((token, index) => {
    switch (token.type) {
      case "strong":
        return (
          <Text key={index} bold>
            {inline(token.tokens ?? [], theme)}
          </Text>
        );
      case "em":
        return (
          <Text key={index} italic>
            {inline(token.tokens ?? [], theme)}
          </Text>
        );
      case "del":
        return (
          <Text key={index} strikethrough>
            {inline(token.tokens ?? [], theme)}
          </Text>
        );
      case "codespan":
        return (
          <Text key={index} color={theme.code}>
            {shown((token as Tokens.Codespan).text)}
          </Text>
        );
      case "link": {
        const link = token as Tokens.Link;
        const label = plainText(link.tokens);
        return (
          <Text key={index}>
            <Text color={theme.accent} underline>
              {inline(link.tokens, theme)}
            </Text>
            {label !== link.href && <Text dimColor> ({visible(link.href)})</Text>}
          </Text>
        );
      }
      case "image":
        return <Text key={index}>[image: {shown((token as Tokens.Image).text)}]</Text>;
      case "br":
        return <Text key={index}>{"\n"}</Text>;
      case "text":
        return "tokens" in token && token.tokens ? (
          <Text key={index}>{inline(token.tokens, theme)}</Text>
        ) : (
          <Text key={index}>{shown(token.text)}</Text>
        );
      case "escape":
        return <Text key={index}>{shown(token.text)}</Text>;
      default:
        return <Text key={index}>{visible(token.raw)}</Text>;
    }
  });
}

/** A cell's or a label's text without markup, for measuring and comparing. */
function plainText(tokens: readonly Token[] | undefined): string {
  return (tokens ?? [])
    .map((token) => {
      if ("tokens" in token && token.tokens && token.type !== "codespan") return plainText(token.tokens);
      if (token.type === "codespan" || token.type === "text" || token.type === "escape") return shown((token as Tokens.Text).text);
      return visible(token.raw);
    })
    .join("");
}

/**
 * A leaf of the drawn markdown. marked decodes numeric character references
 * in text (`&#27;` becomes ESC), so what it hands back is escaped again.
 */
function shown(text: string): string {
  return visible(decodeHtml(text));
}

/** marked escapes &, <, >, " and ' in text for HTML; the terminal wants them as they were. */
function decodeHtml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, entity: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[entity] ?? _,
  );
}
