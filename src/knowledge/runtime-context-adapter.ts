import type { ChannelType, RuntimeContext, RuntimeContextProvider } from "./context-providers.js";

const KNOWN_CHANNELS: ReadonlySet<ChannelType> = new Set(["telegram", "discord", "slack"]);

/**
 * The channel a session key names: the prefix before its first `:` when that
 * is `telegram`, `discord` or `slack` (any case), else `direct` — including a
 * key without a `:`.
 */
export function channelTypeOf(sessionKey: string): ChannelType {
  const colon = sessionKey.indexOf(":");
  if (colon < 0) return "direct";
  const prefix = sessionKey.slice(0, colon).toLowerCase();
  return KNOWN_CHANNELS.has(prefix as ChannelType) ? (prefix as ChannelType) : "direct";
}

export interface RuntimeContextAdapterOptions {
  sessionKey?: string;
  activeToolCount?: number;
  encryptionEnabled?: boolean;
  knowledgeEnabled?: boolean;
  memoryEnabled?: boolean;
}

/**
 * Seed 000 `RuntimeContextAdapter`. The seed asks for mutex-protected
 * updates; in one JavaScript thread the equivalent is that the state is one
 * frozen object replaced whole by `setSession`, so a reader between two
 * awaits sees either the old session with its channel or the new one with
 * its channel, never a mix. Readers get a copy.
 */
export class RuntimeContextAdapter implements RuntimeContextProvider {
  private state: Readonly<RuntimeContext>;

  constructor(options: RuntimeContextAdapterOptions = {}) {
    const sessionKey = options.sessionKey ?? "";
    this.state = Object.freeze({
      sessionKey,
      channelType: channelTypeOf(sessionKey),
      activeToolCount: options.activeToolCount ?? 0,
      encryptionEnabled: options.encryptionEnabled ?? false,
      knowledgeEnabled: options.knowledgeEnabled ?? false,
      memoryEnabled: options.memoryEnabled ?? false,
    });
  }

  setSession(sessionKey: string): void {
    this.state = Object.freeze({ ...this.state, sessionKey, channelType: channelTypeOf(sessionKey) });
  }

  getRuntimeContext(): RuntimeContext {
    return { ...this.state };
  }
}
