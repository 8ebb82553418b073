/**
 * JSON from a file or a client, parsed only when its arrays and objects nest no deeper than a
 * bound. `JSON.parse` itself takes any depth, but what later walks the value (`JSON.stringify`,
 * a validator) recurses and overflows the stack, and that error would name the wrong cause.
 */
import { failed, succeeded, type Result } from './result.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * The value of `text`, or why it is refused: `nested deeper than <maxDepth> levels`, or the
 * parser's own reason for text that is not JSON. `[]` and `{}` are one level, a scalar none.
 */
export function parseBoundedJson(text: string, maxDepth: number): Result<unknown, string> {
  if (nestingDepth(text, maxDepth) > maxDepth) return failed(`nested deeper than ${maxDepth} levels`);
  try {
    return succeeded(JSON.parse(text) as unknown);
  } catch (err) {
    return failed((err as Error).message);
  }
}

/**
 * How deep the brackets of `text` nest outside strings, counted up to `maxDepth + 1` (the scan
 * stops there): one pass, linear in the text. Text that is not JSON may be miscounted; the
 * parser refuses it anyway.
 */
function nestingDepth(text: string, maxDepth: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++; // the escaped character, '"' included, is part of the string
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      deepest = Math.max(deepest, ++depth);
      if (deepest > maxDepth) return deepest;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return deepest;
}
