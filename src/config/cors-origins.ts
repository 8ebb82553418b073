/**
 * `CORS_ORIGINS`: the origins whose browser apps may call the service API, `*` for any, or none
 * (the default). http/cors.ts writes the answers' headers from it.
 */

export type CorsOrigins =
  | { readonly kind: 'off' }
  | { readonly kind: 'any' }
  /** Serialized origins (`https://app.example.com`, RFC 6454 6.1), compared as the browser sends them. */
  | { readonly kind: 'listed'; readonly origins: readonly string[] };

/** Origins `CORS_ORIGINS` may list: a request's Origin is compared with each. */
export const MAX_CORS_ORIGINS = 100;

const OFF: Readonly<CorsOrigins> = { kind: 'off' };

/**
 * Parses `CORS_ORIGINS`: empty for off, `*`, or comma-separated http(s) origins (scheme, host and
 * an optional port; a trailing `/` and upper case are normalised as the browser would send them).
 * A bad value throws an Error whose message says what is wrong.
 */
export function parseCorsOrigins(value: string | undefined): CorsOrigins {
  if (value === undefined || value.trim() === '') return OFF;
  const items = value.split(',').map((item) => item.trim());
  if (items.length === 1 && items[0] === '*') return { kind: 'any' };
  if (items.includes('*')) throw new Error('"*" allows every origin and must stand alone');
  if (items.length > MAX_CORS_ORIGINS) throw new Error(`lists ${items.length} origins, more than ${MAX_CORS_ORIGINS}`);
  const origins: string[] = [];
  for (const item of items) {
    const origin = serializedOrigin(item);
    if (origin === undefined) throw new Error(`${JSON.stringify(item)} is not an origin such as https://app.example.com (scheme, host, optional port; no path)`);
    if (!origins.includes(origin)) origins.push(origin);
  }
  return { kind: 'listed', origins };
}

/** `https://App.example.com/` -> `https://app.example.com`; undefined for anything but an http(s) origin. */
function serializedOrigin(text: string): string | undefined {
  if (!text.startsWith('http://') && !text.startsWith('https://')) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const bare = url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  // `https://a.com/` is fine; `https://a.com?` or `https://a.com#` are not origins.
  return bare && !text.endsWith('?') && !text.endsWith('#') ? url.origin : undefined;
}
