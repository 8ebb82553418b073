/**
 * Host header rules at work. The syntax check every request passes and the `TRUSTED_HOSTS` list
 * are in config/trusted-hosts.ts, since the setting is checked with the same syntax.
 */

/** The host name of a valid Host header value: `example.org:80` -> `example.org`, `[::1]:80` -> `[::1]`. */
export function hostnameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
}
