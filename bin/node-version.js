// Which Node versions Sylk runs on: package.json's engines.node, kept to one
// `>=X.Y.Z` bound so that it is read here without a semver library. Plain
// JavaScript that any Node can load, since it runs before anything else.
import { readFileSync } from "node:fs";

const { engines } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/** The lowest supported version, as [major, minor, patch]. */
export function minimumNodeVersion() {
  const bound = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(engines.node);
  if (!bound) throw new Error(`package.json engines.node must read ">=X.Y.Z", not "${engines.node}"`);
  return bound.slice(1).map(Number);
}

/** Whether `version` ("24.21.0" or "v24.21.0") is at least the minimum. */
export function isSupportedNode(version) {
  const running = version.replace(/^v/, "").split(".").map(Number);
  const minimum = minimumNodeVersion();
  const differing = minimum.findIndex((part, index) => running[index] !== part);
  return differing === -1 || running[differing] > minimum[differing];
}
