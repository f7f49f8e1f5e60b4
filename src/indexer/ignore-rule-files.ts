/** The repository's own excludes, which apply like a `.gitignore` at the root but live where the watch of the tree never looks. */
export const GIT_INFO_EXCLUDE = ".git/info/exclude";

const IGNORE_FILE = /(^|\/)\.(git|sylk)ignore$/;

/**
 * Whether a changed path (relative, '/'-separated) holds ignore rules: a
 * change to it can hide or reveal whole directories that no other event
 * names, so only a pass over the whole project sees what it did.
 */
export function isIgnoreRuleFile(path: string): boolean {
  return path === GIT_INFO_EXCLUDE || IGNORE_FILE.test(path);
}

/** The directory whose rules an ignore-rule file is part of ('' for the root, which `.git/info/exclude` belongs to). */
export function ruleDirectoryOf(ignoreRuleFile: string): string {
  if (ignoreRuleFile === GIT_INFO_EXCLUDE) return "";
  const slash = ignoreRuleFile.lastIndexOf("/");
  return slash === -1 ? "" : ignoreRuleFile.slice(0, slash);
}
