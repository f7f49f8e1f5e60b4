import type { ModelConfig } from "../config/schema.js";
import { createProvider } from "../llm/create-provider.js";

/** How the model check came out: what `sylk doctor` lists as its `model` line. */
export interface ModelCheck {
  name: "model";
  status: "ok" | "warning" | "failed";
  detail: string;
  fix?: string;
}

/** How long the model gets to answer the doctor's request: a few seconds, so a dead endpoint does not hold the check. */
export const MODEL_CHECK_TIMEOUT_MS = 5_000;

const NAME = "model" as const;

/**
 * Whether the model Sylk would talk to answers: one is configured, its key
 * is set, and a real request that generates nothing (the Messages API's
 * token count, an OpenAI-compatible server's model list) comes back within
 * `timeoutMs`. An unreachable endpoint, a refused key or an unknown model is
 * a failed check, with the error in words.
 */
export async function checkModel(config: ModelConfig, env: NodeJS.ProcessEnv, timeoutMs = MODEL_CHECK_TIMEOUT_MS): Promise<ModelCheck> {
  if (config.provider === "none") {
    return {
      name: NAME,
      status: "warning",
      detail: 'no model: model.provider is "none", so answers come from the index',
      fix: 'set model.provider to "anthropic" (with ANTHROPIC_API_KEY) or "openai-compatible" in ~/.sylkrc to talk to a model',
    };
  }
  let choice: ReturnType<typeof createProvider>;
  try {
    choice = createProvider(config, env);
  } catch (error) {
    return {
      name: NAME,
      status: "failed",
      detail: (error as Error).message,
      fix: "fix the model settings in .sylkrc (sylk doctor names the files read)",
    };
  }
  if (!choice.provider) {
    const keyName = config.apiKeyEnv ?? (config.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
    return {
      name: NAME,
      status: "failed",
      detail: `no model can be reached: ${choice.reason}, so answers come from the index`,
      fix: `export ${keyName}=<your key> (or set model.provider to "none" to use Sylk without a model on purpose)`,
    };
  }
  const { provider } = choice;
  const named = `${provider.model} (${provider.name})`;
  if (!provider.probe) return { name: NAME, status: "warning", detail: `${named}: this provider has no request to check it with` };
  const signal = AbortSignal.timeout(timeoutMs);
  const started = performance.now();
  try {
    await provider.probe(signal);
  } catch (error) {
    const detail = signal.aborted ? `no answer within ${timeoutMs / 1000} s` : (error as Error).message;
    return { name: NAME, status: "failed", detail: `${named}: ${detail}`, fix: fixFor(config) };
  }
  return { name: NAME, status: "ok", detail: `${named} answered in ${Math.round(performance.now() - started)} ms` };
}

function fixFor(config: ModelConfig): string {
  const keyName = config.apiKeyEnv ?? (config.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  const endpoint = config.provider === "anthropic" ? "ANTHROPIC_BASE_URL or model.baseUrl" : "OPENAI_BASE_URL or model.baseUrl";
  return `check ${keyName}, ${endpoint}, model.name and the network`;
}
