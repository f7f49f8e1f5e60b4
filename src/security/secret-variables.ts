/** Environment variables whose names say they hold secrets (API keys, tokens, passwords). */
const SECRET_VARIABLE = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/**
 * The environment without variables whose names say they hold secrets: what
 * a process Sylk starts in the project gets (a command, or Sylk's own git),
 * since what it runs may be the repository's.
 */
export function withoutSecretVariables(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SECRET_VARIABLE.test(name)));
}
