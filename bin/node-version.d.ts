/** The lowest supported Node version (package.json's engines.node), as [major, minor, patch]. */
export function minimumNodeVersion(): [number, number, number];
/** Whether `version` ("24.21.0" or "v24.21.0") is at least the minimum. */
export function isSupportedNode(version: string): boolean;
