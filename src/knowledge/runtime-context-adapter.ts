import type { RuntimeContext, RuntimeContextProvider } from "./context-providers.js";

export interface RuntimeContextAdapterOptions {
  sessionKey?: string;
  activeToolCount?: number;
  knowledgeEnabled?: boolean;
  memoryEnabled?: boolean;
}

/**
 * The session state the Runtime Context layer reports. The state is one
 * frozen object replaced whole by `setSession`, so a reader between two
 * awaits sees either the old session or the new one, never a mix. Readers
 * get a copy.
 */
export class RuntimeContextAdapter implements RuntimeContextProvider {
  private state: Readonly<RuntimeContext>;

  constructor(options: RuntimeContextAdapterOptions = {}) {
    this.state = Object.freeze({
      sessionKey: options.sessionKey ?? "",
      activeToolCount: options.activeToolCount ?? 0,
      knowledgeEnabled: options.knowledgeEnabled ?? false,
      memoryEnabled: options.memoryEnabled ?? false,
    });
  }

  setSession(sessionKey: string): void {
    this.state = Object.freeze({ ...this.state, sessionKey });
  }

  getRuntimeContext(): RuntimeContext {
    return { ...this.state };
  }
}
