/**
 * Content negotiation between the two representations the service has for documents and
 * problems: HTML for browsers and JSON for API clients (SPEC 4).
 */
import { rememberLast } from '../util/remember-last.js';

import type { Representation } from '../representation.js';

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** Parses an Accept header; malformed ranges are skipped, q outside 0-1 is clamped, a q that is no number is 0. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [mediaType = '', ...params] = part.split(';');
    const match = /^\s*([\w!#$%&'*+.^`|~-]+)\/([\w!#$%&'*+.^`|~-]+)\s*$/.exec(mediaType);
    if (!match) continue;
    let q = 1;
    for (const param of params) {
      const qMatch = /^\s*q\s*=\s*(\S*)\s*$/i.exec(param);
      if (qMatch) q = Math.min(1, Math.max(0, Number(qMatch[1]) || 0));
    }
    ranges.push({ type: match[1]!.toLowerCase(), subtype: match[2]!.toLowerCase(), q });
  }
  return ranges;
}

/**
 * The q the client gives a concrete media type: that of the most specific range matching it
 * (`type/subtype` over `type/*` over `*\/*`), 0 when none does.
 */
function qualityOf(ranges: readonly MediaRange[], type: string, subtype: string): number {
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 2
      : range.type === type && range.subtype === '*' ? 1
      : range.type === '*' && range.subtype === '*' ? 0
      : -1;
    if (specificity > best) {
      best = specificity;
      q = range.q;
    } else if (specificity === best && specificity >= 0) {
      q = Math.max(q, range.q);
    }
  }
  return q;
}

/**
 * JSON when the client prefers `application/problem+json`, `application/json` or any
 * `application/*+json` over `text/html`; HTML otherwise, ties included, so no Accept and
 * `*\/*` get HTML as observed.
 */
export function negotiate(accept: string | undefined): Representation {
  if (accept === undefined || accept === '' || accept === '*/*') return 'html';
  return negotiateRemembered(accept);
}

/** Clients send few distinct Accept headers, and mostly the same one again as the last. */
const negotiateRemembered = rememberLast((accept: string): Representation => {
  let known = remembered.get(accept);
  if (known === undefined) {
    known = negotiateUncached(accept);
    // A bound keeps hostile variety from growing the map.
    if (remembered.size >= 256) remembered.clear();
    remembered.set(accept, known);
  }
  return known;
});

const remembered = new Map<string, Representation>();

function negotiateUncached(accept: string): Representation {
  const ranges = parseAccept(accept);
  const html = qualityOf(ranges, 'text', 'html');
  let json = Math.max(qualityOf(ranges, 'application', 'problem+json'), qualityOf(ranges, 'application', 'json'));
  for (const range of ranges) {
    if (range.type === 'application' && range.subtype.endsWith('+json')) json = Math.max(json, range.q);
  }
  return json > html ? 'json' : 'html';
}
