/**
 * `TRUSTED_PROXIES`: the direct peers that may speak for the client through X-Forwarded-For and
 * X-Forwarded-Proto (http/proxies.ts applies it). Addresses are compared as 16 bytes (IPv4 as
 * IPv4-mapped IPv6), so one prefix test serves both families.
 */
import { isIP } from 'node:net';

export interface TrustedProxies {
  /** `REMOTE_ADDR` was listed: every direct peer is trusted. */
  readonly trustsAnyPeer: boolean;
  readonly ranges: readonly AddressRange[];
}

export interface AddressRange {
  readonly bytes: Uint8Array;
  readonly prefixBits: number;
}

/** The `private_ranges` keyword: loopback, private, link-local and unspecified addresses. */
const PRIVATE_RANGES: readonly string[] = [
  '127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '0.0.0.0/8',
  '::1/128', '::/128', 'fc00::/7', 'fe80::/10',
];

/** Parses `TRUSTED_PROXIES`: comma-separated IPs, CIDRs, `REMOTE_ADDR` and `private_ranges`. */
export function parseTrustedProxies(list: string): TrustedProxies {
  let trustsAnyPeer = false;
  const ranges: AddressRange[] = [];
  for (const entry of list.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    if (entry === 'REMOTE_ADDR') trustsAnyPeer = true;
    else if (entry === 'private_ranges') ranges.push(...PRIVATE_RANGES.map(parseRange));
    else ranges.push(parseRange(entry));
  }
  return { trustsAnyPeer, ranges };
}

/** `10.0.0.0/8`, `2001:db8::/32` or a single address. */
export function parseRange(text: string): AddressRange {
  const [address = '', prefix, ...rest] = text.split('/');
  const bytes = parseAddress(address);
  if (bytes === undefined || rest.length > 0) throw new Error(`${JSON.stringify(text)} is not an IP address or CIDR range`);
  const isV4 = isIP(address) === 4;
  const maxBits = isV4 ? 32 : 128;
  let bits = maxBits;
  if (prefix !== undefined) {
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > maxBits) {
      throw new Error(`${JSON.stringify(text)} has a prefix length outside 0-${maxBits}`);
    }
    bits = Number(prefix);
  }
  return { bytes, prefixBits: isV4 ? 96 + bits : bits };
}

/** 16 bytes for an IPv4 or IPv6 address (zone id ignored), or undefined when it is neither. */
export function parseAddress(text: string): Uint8Array | undefined {
  const address = text.replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return mapV4(address);
  if (family !== 6) return undefined;
  const bytes = new Uint8Array(16);
  let head = address;
  let tailV4: Uint8Array | undefined;
  const lastColon = address.lastIndexOf(':');
  if (address.includes('.', lastColon)) {
    tailV4 = mapV4(address.slice(lastColon + 1)).subarray(12);
    head = address.slice(0, lastColon + 1) + '0:0';
  }
  const [left = '', right] = head.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const groups = right === undefined
    ? leftGroups
    : [...leftGroups, ...Array<string>(8 - leftGroups.length - rightGroups.length).fill('0'), ...rightGroups];
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  if (tailV4) bytes.set(tailV4, 12);
  return bytes;
}

function mapV4(address: string): Uint8Array {
  const bytes = new Uint8Array(16);
  bytes[10] = 0xff;
  bytes[11] = 0xff;
  address.split('.').forEach((part, i) => (bytes[12 + i] = Number(part)));
  return bytes;
}

/** Whether `bytes` lies inside `range`. */
export function rangeContains(range: AddressRange, bytes: Uint8Array): boolean {
  const whole = range.prefixBits >> 3;
  for (let i = 0; i < whole; i++) if (range.bytes[i] !== bytes[i]) return false;
  const rest = range.prefixBits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (range.bytes[whole]! & mask) === (bytes[whole]! & mask);
}
