/** Numbers as `sylk` prints them and the screen shows them. */

// Made on first use: setting up ICU's number formatting took ~10 ms of every command's start-up.
let integer: Intl.NumberFormat | undefined;

export function formatCount(value: number): string {
  integer ??= new Intl.NumberFormat("en-US");
  return integer.format(Math.round(value));
}

export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

/** `[████████░░] 80%` */
export function progressBar(done: number, total: number, width = 20): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * width);
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${Math.floor(ratio * 100)}%`;
}
