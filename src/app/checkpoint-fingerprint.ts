import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../files/regular-file.js";

/**
 * Fingerprints of a checkpointed file's bytes: whether a file is still what
 * an agent write left, and whether a masked checkpoint filled in from the
 * file is byte for byte what it was. A plain SHA-256 stored beside the
 * masked text would let anyone holding the database guess a weak password
 * in it offline (everything else about the file is known); so the
 * fingerprint is an HMAC under a key that lives outside the database, in
 * `$SYLK_HOME/checkpoint.key` (0600), made on first use.
 */

const KEYED = "hmac-sha256:";
const KEY_BYTES = 32;

export type Fingerprint = (bytes: Buffer | string) => string;

export interface CheckpointFingerprints {
  of: Fingerprint;
  /** Whether the bytes have this fingerprint; a plain SHA-256 (kept by checkpoints older than schema 16) is compared as such. */
  matches(bytes: Buffer, fingerprint: string): boolean;
}

/** Fingerprints under the user's checkpoint key (read or made on first use). */
export function checkpointFingerprints(sylkHome: string): CheckpointFingerprints {
  let key: Buffer | undefined;
  const of: Fingerprint = (bytes) => {
    key ??= checkpointKey(sylkHome);
    return KEYED + createHmac("sha256", key).update(bytes).digest("hex");
  };
  return {
    of,
    matches(bytes, fingerprint) {
      const actual = fingerprint.startsWith(KEYED) ? of(bytes) : createHash("sha256").update(bytes).digest("hex");
      return actual.length === fingerprint.length && timingSafeEqual(Buffer.from(actual), Buffer.from(fingerprint));
    },
  };
}

/** The key, made once: written to a file of its own and linked into place, so two processes agree on one. */
function checkpointKey(sylkHome: string): Buffer {
  const path = join(sylkHome, "checkpoint.key");
  const existing = readKey(path);
  if (existing) return existing;
  mkdirSync(sylkHome, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const descriptor = openSync(temporary, "wx", 0o600);
  try {
    writeSync(descriptor, randomBytes(KEY_BYTES));
  } finally {
    closeSync(descriptor);
  }
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  const key = readKey(path);
  if (!key)
    throw new Error(
      `${path} is not a ${KEY_BYTES}-byte checkpoint key; remove it and Sylk makes a new one (older checkpoints then count as changed).`,
    );
  return key;
}

function readKey(path: string): Buffer | undefined {
  try {
    const bytes = readRegularFile(path, { noFollow: true });
    return bytes.length === KEY_BYTES ? bytes : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
