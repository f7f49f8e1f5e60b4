import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser";
import { ConfigError, errorMessage } from "../errors.js";
import { readRegularFile } from "../files/regular-file.js";
import { CONFIG_FILE_NAME } from "./defaults.js";
import { type GatedSetting, withoutTrustGatedKeys } from "./trust-gated-keys.js";

// A `.sylkrc` read as the JSON object it holds, before any schema. Apart from `load-config.ts` so that the
// trust question at launch reads it without loading the configuration's schemas.

/** A configuration layer as written, not yet validated. */
export type RawObject = Record<string, unknown>;

/**
 * The trust-gated settings the project's `.sylkrc` asks for, read without
 * loading the rest: what the trust question shows. Empty when there is no
 * file, or it sets none of them.
 */
export function trustGatedProjectSettings(projectRoot: string, env: NodeJS.ProcessEnv = process.env): GatedSetting[] {
  const path = resolve(projectRoot, CONFIG_FILE_NAME);
  if (path === resolve(env.HOME ?? homedir(), CONFIG_FILE_NAME) || !existsSync(path)) return [];
  return withoutTrustGatedKeys(readConfigFile(path)).ignored;
}

/** The file's object; a `ConfigError` that says where when it cannot be read or is not a JSON object. */
export function readConfigFile(path: string): RawObject {
  let text: string;
  try {
    // A FIFO planted as a project's .sylkrc would otherwise hold every command at start.
    text = readRegularFile(path).toString("utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${errorMessage(error)}`);
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    throw new ConfigError(
      `Malformed config file ${path} at line ${line}, column ${column}: ${printParseErrorCode(first.error)}. ` +
        `The file is JSON with comments; see .sylkrc.example.`,
    );
  }
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`Malformed config file ${path}: the top level must be an object.`);
  }
  rejectPrototypeKeys(value, [], path);
  return value as RawObject;
}

/**
 * The parser turns a `"__proto__"` key into the object's prototype: its
 * settings would be read through it while no walk over the file's own keys
 * (the trust gate, the trust hash, validation) sees them. It is never a
 * setting, so it is an error, like any unknown key.
 */
function rejectPrototypeKeys(value: unknown, path: readonly string[], file: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      rejectPrototypeKeys(item, [...path, String(index)], file);
    });
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (Object.getPrototypeOf(value) !== Object.prototype) {
    throw new ConfigError(`Invalid configuration in ${file}: key "${[...path, "__proto__"].join(".")}": not a setting; remove it.`);
  }
  for (const [key, inner] of Object.entries(value)) rejectPrototypeKeys(inner, [...path, key], file);
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}
