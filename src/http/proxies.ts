/**
 * Trusted proxies at work: whether a direct peer may speak for the client, and which address is
 * the client's (the right-most untrusted hop of X-Forwarded-For). The list is a setting
 * (config/trusted-proxies.ts).
 */
import { isIP } from 'node:net';
import { parseAddress, rangeContains, type TrustedProxies } from '../config/index.js';

/** Whether the address `ip` (text) is in one of the trusted ranges. */
export function isTrustedAddress(proxies: TrustedProxies, ip: string): boolean {
  if (proxies.ranges.length === 0) return false;
  const bytes = parseAddress(ip);
  return bytes !== undefined && proxies.ranges.some((range) => rangeContains(range, bytes));
}

/** Whether the direct peer may speak for the client. */
export function isTrustedPeer(proxies: TrustedProxies, peer: string): boolean {
  return proxies.trustsAnyPeer || isTrustedAddress(proxies, peer);
}

/**
 * The client address: the peer itself unless the peer is trusted, then the right-most
 * X-Forwarded-For entry that is not a trusted proxy (the left-most when all are trusted).
 * A malformed entry stops the walk there: nothing left of it can be believed.
 */
export function resolveClientIp(proxies: TrustedProxies, peer: string, forwardedFor: string | undefined): string {
  if (forwardedFor === undefined || !isTrustedPeer(proxies, peer)) return peer;
  const hops = forwardedFor.split(',').map((s) => normaliseForwardedAddress(s.trim()));
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === undefined) return client;
    client = hop;
    if (!isTrustedAddress(proxies, hop)) return hop;
  }
  return client;
}

/** `1.2.3.4`, `1.2.3.4:5678`, `[::1]:80` or `::1` to the bare address; undefined if not an IP. */
function normaliseForwardedAddress(text: string): string | undefined {
  let address = text;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.indexOf(':'));
  return isIP(address) === 0 ? undefined : unmapV4(address);
}

/** `::ffff:1.2.3.4` (how a dual-stack socket reports IPv4 peers) to `1.2.3.4`. */
export function unmapV4(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
