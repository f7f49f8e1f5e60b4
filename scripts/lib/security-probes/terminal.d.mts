// Types of terminal.mjs (plain JS), for the tests that import it.

export interface ProbeTerminal {
  screen(options?: { escapes?: boolean }): string;
  title(): string;
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  send(keys: string, options?: { literal?: boolean }): string;
  exitStatus(): number | undefined;
  close(): void;
}

export function startTui(
  lab: unknown,
  args?: readonly string[],
  options?: { env?: Record<string, string | undefined>; columns?: number; rows?: number },
): ProbeTerminal;
export function dialogOf(screen: string, title: string): string | undefined;
export function attributesAt(escaped: string, index: number): { concealed: boolean; background: number | string | undefined };
