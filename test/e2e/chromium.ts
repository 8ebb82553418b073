/**
 * Headless Chromium as the browser tests drive it: through its own command line only.
 */

/** Flags that keep a headless Chromium from phoning home or touching anything outside its profile. */
export function chromiumArgs(profileDir: string): string[] {
  return [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
    `--user-data-dir=${profileDir}`,
  ];
}

/**
 * The text a reader sees in a DOM dump: the head, scripts and styles dropped, tags removed,
 * the few entities a serialiser writes decoded, white space collapsed.
 */
export function visibleText(html: string): string {
  return html
    .replace(/<(head|script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;|&#34;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
