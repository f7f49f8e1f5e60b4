import { render, useApp } from "ink";
import { useState } from "react";
import type { GatedSetting } from "../config/trust-gated-keys.js";
import { TrustPrompt, type TrustedBefore } from "./components/trust-prompt.js";
import { isCtrlC } from "./hooks/use-interrupt-keys.js";
import { useKeys } from "./hooks/use-keys.js";
import { createTheme, ThemeContext } from "./theme.js";

export interface FolderTrustQuestion {
  file: string;
  settings: readonly GatedSetting[];
  /** The folder was trusted before, with other settings than these (or without a record of them). */
  trustedBefore?: TrustedBefore;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** The user's answer, or "cancelled" on Ctrl-C (nothing is recorded then). */
export type TrustAnswer = boolean | "cancelled";

/**
 * Asks the trust question on its own screen before the session opens: the
 * answer decides which configuration the session is built with, so it must
 * be known before the project's services are.
 */
export async function askFolderTrust(question: FolderTrustQuestion): Promise<TrustAnswer> {
  let answer: TrustAnswer = "cancelled";
  const instance = render(
    <ThemeContext.Provider value={createTheme(question.env)}>
      <TrustQuestion
        file={question.file}
        settings={question.settings}
        {...(question.trustedBefore ? { trustedBefore: question.trustedBefore } : {})}
        onAnswer={(value) => {
          answer = value;
        }}
      />
    </ThemeContext.Provider>,
    { stdin: question.stdin, stdout: question.stdout, stderr: question.stderr, exitOnCtrlC: false },
  );
  await instance.waitUntilExit();
  return answer;
}

function TrustQuestion({
  file,
  settings,
  trustedBefore,
  onAnswer,
}: {
  file: string;
  settings: readonly GatedSetting[];
  trustedBefore?: TrustedBefore;
  onAnswer: (answer: TrustAnswer) => void;
}) {
  const { exit } = useApp();
  const [answered, setAnswered] = useState(false);
  // Answered: draw nothing, so the dialog leaves the screen before the session draws its own.
  const finish = (answer: TrustAnswer) => {
    onAnswer(answer);
    setAnswered(true);
    setTimeout(exit, 0);
  };
  useKeys((input, key) => {
    if (isCtrlC(input, key)) finish("cancelled");
  });
  return answered ? null : <TrustPrompt file={file} settings={settings} {...(trustedBefore ? { trustedBefore } : {})} onAnswer={finish} />;
}
