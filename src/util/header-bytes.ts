/**
 * Node gives header values and request targets one character per byte (Latin-1); a client that
 * sent UTF-8 sent other characters than those.
 */

const NON_ASCII = /[\u0080-\u00ff]/;

/**
 * A header value or target as Node gives it, read as the UTF-8 it was sent in. Invalid sequences
 * become U+FFFD, so one byte in stays a few bytes out wherever it is shown.
 */
export function decodeUtf8(text: string): string {
  return NON_ASCII.test(text) ? Buffer.from(text, 'latin1').toString('utf8') : text;
}
