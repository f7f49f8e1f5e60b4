import type { CodeSearcher } from "../../agent/tools/search-codebase.js";
import type { WarmIndexClient } from "./warm-index-client.js";

/**
 * Code search through the interactive session's warm index, and through the
 * local index (`fallback`, built only if needed) whenever the session does
 * not answer: it may have ended, or be busy past the timeout. Once it has
 * failed, later searches go local at once.
 */
export class RemoteCodeSearcher implements CodeSearcher {
  private broken = false;

  constructor(
    private readonly client: WarmIndexClient,
    private readonly fallback: () => CodeSearcher,
  ) {}

  async search(query: string, options: Parameters<CodeSearcher["search"]>[1] = {}): ReturnType<CodeSearcher["search"]> {
    if (!this.broken) {
      try {
        return await this.client.search(query, options);
      } catch {
        this.broken = true;
        this.client.close();
      }
    }
    return this.fallback().search(query, options);
  }
}
