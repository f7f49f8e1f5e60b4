// Types of scripts/lib/launch-floor.mjs (plain JS, run by node without a build), for the test that imports it.

/** Writes a plain Node program and a bare Ink prompt drawing `text` into `directory`; returns their paths. */
export function buildLaunchFloors(directory: string, text: string): Promise<{ plainNode: string; bareInk: string }>;
