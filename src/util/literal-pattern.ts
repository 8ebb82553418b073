/** A regular expression source that matches `text` itself: every syntax character escaped. */
export function literalPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
