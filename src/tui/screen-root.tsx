import { useMemo, type ReactNode } from "react";
import { KeysProvider } from "./hooks/use-keys.js";
import { createTheme, ThemeContext } from "./theme.js";

/**
 * What every screen of a Sylk process is drawn in: the theme and the one
 * listener on the keys. The launch frame and the session's screen are both
 * its children, so when one replaces the other, in the same Ink instance,
 * the listener stays and no key read in between is lost.
 */
export function ScreenRoot({ env, children }: { env: NodeJS.ProcessEnv; children: ReactNode }) {
  const theme = useMemo(() => createTheme(env), [env]);
  return (
    <ThemeContext.Provider value={theme}>
      <KeysProvider>{children}</KeysProvider>
    </ThemeContext.Provider>
  );
}
