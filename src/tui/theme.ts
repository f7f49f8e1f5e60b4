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
}

const COLOURS: Theme = {
  accent: "cyan",
  user: "blueBright",
  added: "green",
  removed: "red",
  success: "green",
  warning: "yellow",
  error: "red",
  muted: "gray",
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
};

export function createTheme(env: NodeJS.ProcessEnv): Theme {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== "" ? PLAIN : COLOURS;
}

export const ThemeContext = createContext<Theme>(COLOURS);

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
