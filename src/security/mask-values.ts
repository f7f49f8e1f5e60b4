import { maskSecrets } from "./secrets.js";

export interface MaskedValue<T> {
  value: T;
  /** Rule ids that matched, one per masked value. */
  findings: string[];
}

/**
 * Masks the secrets inside JSON data (a tool call's input, a conversation
 * message, a log line), returning a masked copy: the caller's value is left
 * as it was, so a tool still gets the real input. Every string is masked on
 * its own, names of fields included; then the serialised whole is masked
 * once more, which sees a value beside the field name that makes it a secret
 * (`{"password": "…"}`, where the value alone looks like any word). When that
 * second pass cannot be read back as JSON (it cut through an escape), the
 * first pass's copy is what is returned.
 */
export function maskSecretsIn<T>(value: T): MaskedValue<T> {
  const findings: string[] = [];
  const masked = mapStrings(value, (text) => {
    const result = maskSecrets(text);
    findings.push(...result.findings);
    return result.text;
  }) as T;
  const serialised = JSON.stringify(masked);
  if (serialised === undefined) return { value: masked, findings };
  const whole = maskSecrets(serialised);
  if (whole.findings.length === 0) return { value: masked, findings };
  try {
    return { value: JSON.parse(whole.text) as T, findings: [...findings, ...whole.findings] };
  } catch {
    return { value: masked, findings };
  }
}

/** JSON text with its secrets masked as `maskSecretsIn` masks the value it holds; text that is not JSON is masked as text. */
export function maskSecretsInJson(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return maskSecrets(text).text;
  }
  const masked = maskSecretsIn(value);
  return masked.findings.length > 0 ? JSON.stringify(masked.value) : text;
}

/** Strings mapped through arrays and plain objects; anything else (a number, a Buffer) is kept as it is. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
