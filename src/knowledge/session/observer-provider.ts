import type { SylkConfig } from "../../config/schema.js";
import { createProvider } from "../../llm/create-provider.js";
import type { ModelProvider } from "../../llm/model-types.js";

/**
 * The observer's model: `observationalMemory.provider` and
 * `model` when set, the session's otherwise; undefined when there is no
 * model at all, and the extractive observer writes the notes.
 */
export function observerFor(config: SylkConfig, env: NodeJS.ProcessEnv, session: ModelProvider | undefined): ModelProvider | undefined {
  const memory = config.observationalMemory;
  if (!memory.provider && !memory.model) return session;
  const choice = createProvider(
    { ...config.model, ...(memory.provider ? { provider: memory.provider } : {}), ...(memory.model ? { name: memory.model } : {}) },
    env,
  );
  return choice.provider ?? session;
}
