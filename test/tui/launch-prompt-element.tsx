import { LaunchPrompt, type LaunchTyping } from "../../src/tui/components/launch-prompt.js";
import { ScreenRoot } from "../../src/tui/screen-root.js";

/** The launch frame's screen as `showLaunchFrame` draws it, for tests that render it on their own streams. */
export function launchPromptElement(env: NodeJS.ProcessEnv, typing: LaunchTyping) {
  return (
    <ScreenRoot env={env}>
      <LaunchPrompt typing={typing} onLeave={() => undefined} />
    </ScreenRoot>
  );
}
