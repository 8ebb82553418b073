/**
 * Content negotiation between the two representations the service has for documents and
 * problems: HTML for browsers and JSON for API clients (docs/http.md, "Routing and errors").
 */
import type { Representation } from '../core/index.js';

export type { Representation };

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
  const ranges = parseAccept(accept);
  const html = qualityOf(ranges, 'text', 'html');
  let json = Math.max(qualityOf(ranges, 'application', 'problem+json'), qualityOf(ranges, 'application', 'json'));
  for (const range of ranges) {
    if (range.type === 'application' && range.subtype.endsWith('+json')) json = Math.max(json, range.q);
  }
  return json > html ? 'json' : 'html';
}

/** Distinct Accept headers a negotiator keeps its answer for; more clears them all and starts over. */
export const MAX_REMEMBERED_ACCEPTS = 256;

/**
 * `negotiate` with its answers kept, per Accept header as sent, by the one who made it (an app):
 * clients send few distinct Accept headers (a browser's, a library's), and parsing one is
 * regex work per media range. At most MAX_REMEMBERED_ACCEPTS, whatever clients send.
 */
export function createNegotiator(): (accept: string | undefined) => Representation {
  const remembered = new Map<string, Representation>();
  return (accept) => {
    if (accept === undefined || accept === '' || accept === '*/*') return 'html';
    let known = remembered.get(accept);
    if (known === undefined) {
      known = negotiate(accept);
      if (remembered.size >= MAX_REMEMBERED_ACCEPTS) remembered.clear();
      remembered.set(accept, known);
    }
    return known;
  };
}
