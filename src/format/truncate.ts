/** The text cut to `max` characters, an ellipsis standing for what was cut. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}
