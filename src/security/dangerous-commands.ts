/**
 * Commands refused in every permission mode, bypass included (fork bombs,
 * `rm -rf /`, pipe-to-shell, and their usual cousins).
 * Defence in depth, not a sandbox: it catches the catastrophic and the
 * obviously remote-controlled, and says why.
 */
interface DangerousPattern {
  pattern: RegExp;
  reason: string;
}

const DANGEROUS_PATTERNS: readonly DangerousPattern[] = [
  { pattern: /:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}\s*;?\s*:/, reason: "a fork bomb" },
  { pattern: /\b(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1\s*&/, reason: "a fork bomb" },
  {
    pattern: /\brm\s+(?:-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-[a-zA-Z-]+\s+)*(?:\/|\/\*|~|~\/|\$HOME|\/\.\*?)(?:\s|$|;|&|\|)/,
    reason: "recursive deletion of the root or home directory",
  },
  { pattern: /--no-preserve-root/, reason: "recursive deletion of the root directory" },
  {
    pattern: /\b(?:curl|wget|fetch)\b[^|;&]*\|\s*(?:sudo\s+)?(?:ba|z|k|da|fi)?sh\b/,
    reason: "piping a download into a shell (pipe-to-shell)",
  },
  { pattern: /\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b/, reason: "running a downloaded script (pipe-to-shell)" },
  { pattern: /\bmkfs(?:\.\w+)?\b/, reason: "formatting a file system" },
  { pattern: /\bdd\b[^;&|]*\bof=\/dev\/(?:sd|hd|nvme|vd|xvd|disk|mmcblk)/, reason: "writing raw to a disk device" },
  { pattern: />\s*\/dev\/(?:sd|hd|nvme|vd|xvd|disk|mmcblk)\w*/, reason: "overwriting a disk device" },
  { pattern: /\bchmod\s+(?:-[a-zA-Z]*R[a-zA-Z]*\s+)?[0-7]*777\s+\/(?:\s|$)/, reason: "making the whole file system world-writable" },
  { pattern: /\b(?:shutdown|reboot|halt|poweroff)\b(?:\s|$)/, reason: "shutting the machine down" },
];

/** Why the command is refused in every mode, or undefined when it is not on the blocklist. */
export function dangerousCommandReason(command: string): string | undefined {
  const normalised = command.replace(/\\\n/g, " ");
  return DANGEROUS_PATTERNS.find(({ pattern }) => pattern.test(normalised))?.reason;
}
