/**
 * Host header rules: the syntax check every request passes and the `TRUSTED_HOSTS` list.
 */

/** `[a-z0-9.-]` names or a bracketed IPv6 address, then an optional port (SPEC 3). */
const VALID_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

export type HostMatcher = (hostname: string) => boolean;

/** Whether a Host header value (already lower-cased) is syntactically a host. */
export function isValidHost(host: string): boolean {
  return VALID_HOST.test(host);
}

/** The host name of a valid Host header value: `example.org:80` -> `example.org`, `[::1]:80` -> `[::1]`. */
export function hostnameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
}

/**
 * Parses `TRUSTED_HOSTS`: comma-separated entries, each an exact host name, `*.example.org`
 * (any subdomain) or a regular expression written between `^` and `$`. Empty: no restriction.
 */
export function parseTrustedHosts(list: string): HostMatcher | undefined {
  const entries = list.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (entries.length === 0) return undefined;
  const matchers = entries.map(compileHostPattern);
  return (hostname) => matchers.some((match) => match(hostname));
}

function compileHostPattern(entry: string): HostMatcher {
  if (entry.startsWith('^')) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(entry.endsWith('$') ? entry : `${entry}$`, 'i');
    } catch {
      throw new Error(`${JSON.stringify(entry)} is not a valid pattern`);
    }
    return (hostname) => pattern.test(hostname);
  }
  const name = entry.toLowerCase();
  if (name.startsWith('*.')) {
    const suffix = name.slice(1);
    return (hostname) => hostname.endsWith(suffix) && hostname.length > suffix.length;
  }
  if (!isValidHost(name)) throw new Error(`${JSON.stringify(entry)} is not a host name or pattern`);
  return (hostname) => hostname === name;
}
