import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sylkPackageRoot } from "../package-root.js";

/** The version in Sylk's package.json, the one place it is written. */
export function packageVersion(): string {
  const { version } = JSON.parse(readFileSync(join(sylkPackageRoot(), "package.json"), "utf8")) as { version: string };
  return version;
}
