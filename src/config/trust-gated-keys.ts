import { createHash } from "node:crypto";

/**
 * Settings a cloned repository must not choose for the user: where requests
 * carrying the user's credentials go (`baseUrl`), which environment variable
 * is sent as a key (`apiKeyEnv`: it could name a cloud secret), what the
 * agent may do without asking (`permissions`), how far commands are fenced
 * in (`sandbox`), what runs outside that fence (`hooks`), and what writes outside the project, where another
 * project would read it: knowledge (the user's store for every project),
 * observational memory (and its observer's model), learning and handoff
 * statistics pooled in `$SYLK_HOME/profiles.db`, and which models
 * sub-agents call (`agents.models`); and which programs start and which
 * URLs are reached as MCP servers (`mcpServers`). A project's own `.sylkrc` sets them
 * only once the user has trusted the folder as its settings are now; the
 * user's `~/.sylkrc`, environment variables and flags always may. A key
 * added later that runs code, loads tools, calls the network or writes
 * outside the project belongs in this list too.
 */
export const TRUST_GATED_KEYS: readonly string[] = [
  "model.baseUrl",
  "model.apiKeyEnv",
  "embedding.baseUrl",
  "embedding.apiKeyEnv",
  "permissions",
  "sandbox",
  "knowledge.enabled",
  "observationalMemory",
  "agents.models",
  "learning.enabled",
  "handoff.shareProfiles",
  // Commands run outside the sandbox, as the user, at every tool call, prompt and stop.
  "hooks",
  // Each server is a program Sylk starts, outside the sandbox, or a URL it reaches with the headers the file gives.
  "mcpServers",
];

type RawObject = Record<string, unknown>;

export interface GatedSetting {
  /** Dotted key, e.g. `permissions.allow`. */
  key: string;
  value: unknown;
}

/**
 * What the user trusted a folder with (see `project/folder-trust.ts`): a
 * trusted decision holds the hash of the gated settings it was made for;
 * one recorded without (by an older version) vouches for nothing.
 */
export interface TrustRecord {
  trusted: boolean;
  settingsHash?: string;
}

/**
 * How a project's gated settings stand: honoured (`trusted`), or ignored
 * because the folder is not trusted, because they changed since it was
 * (`changed`), or because its trust was recorded without them (`unrecorded`).
 */
export type TrustVerdict = "trusted" | "untrusted" | "changed" | "unrecorded";

export function trustVerdict(record: TrustRecord | undefined, settings: readonly GatedSetting[]): TrustVerdict {
  if (!record?.trusted) return "untrusted";
  if (record.settingsHash === undefined) return "unrecorded";
  return record.settingsHash === gatedSettingsHash(settings) ? "trusted" : "changed";
}

/**
 * A fingerprint of the gated settings as a trust decision saw them: the
 * keys and values only, in a canonical order, so reordering the file or
 * editing a setting that is not gated leaves it alone, and any change to a
 * gated one (a `git pull` that points `model.baseUrl` elsewhere) does not.
 */
export function gatedSettingsHash(settings: readonly GatedSetting[]): string {
  const entries = settings.map(({ key, value }) => [key, canonical(value)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(JSON.stringify(entries)).digest("hex");
}

/** The value with every object's keys sorted, so equal settings give equal JSON. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical(value[key])]),
  );
}

export interface GatedSplit {
  /** The layer without the gated keys. */
  kept: RawObject;
  /** What was removed, in the order found. */
  ignored: GatedSetting[];
}

/**
 * Removes the trust-gated keys from a project layer. Without its endpoint, a
 * project's choice of a remote embedder is dropped as well: it would
 * otherwise be an incomplete setting that stops every command.
 */
export function withoutTrustGatedKeys(raw: RawObject): GatedSplit {
  const ignored: GatedSetting[] = [];
  const kept = strip(raw, "", ignored);
  const embedding = kept.embedding as RawObject | undefined;
  if (ignored.some(({ key }) => key === "embedding.baseUrl") && embedding?.provider === "openai-compatible") {
    for (const key of ["provider", "model"]) {
      if (key in embedding) {
        ignored.push({ key: `embedding.${key}`, value: embedding[key] });
        delete embedding[key];
      }
    }
  }
  return { kept, ignored };
}

function strip(raw: RawObject, prefix: string, ignored: GatedSetting[]): RawObject {
  const out: RawObject = {};
  for (const [key, value] of Object.entries(raw)) {
    const dotted = `${prefix}${key}`;
    if (TRUST_GATED_KEYS.includes(dotted)) {
      ignored.push(...leafKeysOf(value, dotted));
      continue;
    }
    out[key] = isPlainObject(value) ? strip(value, `${dotted}.`, ignored) : value;
  }
  return out;
}

function leafKeysOf(value: unknown, dotted: string): GatedSetting[] {
  if (!isPlainObject(value) || Object.keys(value).length === 0) return [{ key: dotted, value }];
  return Object.entries(value).flatMap(([key, inner]) => leafKeysOf(inner, `${dotted}.${key}`));
}

function isPlainObject(value: unknown): value is RawObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
