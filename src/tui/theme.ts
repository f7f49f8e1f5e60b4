import { createContext, useContext } from "react";

/**
 * The few colours the UI uses, by meaning. With `NO_COLOR` set (to anything
 * but the empty string, per no-color.org) every colour is undefined, so no
 * component can add one; bold, dim and inverse are attributes and stay.
 */
export interface Theme {
  readonly accent: string | undefined;
  readonly user: string | undefined;
  readonly added: string | undefined;
  readonly removed: string | undefined;
  readonly success: string | undefined;
  readonly warning: string | undefined;
  readonly error: string | undefined;
  readonly muted: string | undefined;
  /** Inline `code` and headings in answers. */
  readonly code: string | undefined;
  readonly heading: string | undefined;
  /** The colour of a highlight.js token kind (`keyword`, `string`, …) in code blocks. */
  syntax(kind: string | undefined): string | undefined;
}

/** highlight.js token kinds by colour; kinds not listed stay plain. */
const SYNTAX: Record<string, string> = {
  keyword: "magenta",
  built_in: "cyan",
  type: "cyan",
  literal: "yellow",
  number: "yellow",
  string: "green",
  regexp: "green",
  comment: "gray",
  meta: "gray",
  title: "blue",
  "title.function_": "blue",
  "title.class_": "cyan",
  attr: "cyan",
  attribute: "cyan",
  property: "cyan",
  variable: "red",
  "template-variable": "red",
  symbol: "yellow",
  tag: "blue",
  name: "blue",
  selector: "magenta",
  addition: "green",
  deletion: "red",
  section: "blue",
};

const COLOURS: Theme = {
  accent: "cyan",
  user: "blueBright",
  added: "green",
  removed: "red",
  success: "green",
  warning: "yellow",
  error: "red",
  muted: "gray",
  code: "cyan",
  heading: "cyan",
  syntax: (kind) => (kind === undefined ? undefined : SYNTAX[kind]),
};

const PLAIN: Theme = {
  accent: undefined,
  user: undefined,
  added: undefined,
  removed: undefined,
  success: undefined,
  warning: undefined,
  error: undefined,
  muted: undefined,
  code: undefined,
  heading: undefined,
  syntax: () => undefined,
};

export function createTheme(env: NodeJS.ProcessEnv): Theme {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== "" ? PLAIN : COLOURS;
}

export const ThemeContext = createContext<Theme>(COLOURS);

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
