// The work of our 404 path, for the peers of the mix benchmark: the prod HTML page unless the
// client prefers a JSON type, the problem document otherwise, the cache headers, and the error
// and incident lines through pino. Both peers (fastify, Hono) share it, so they differ only in
// the framework around it.
import pino from 'pino';

/** Our prod HTML page for a 404, given by the benchmark (the exact bytes ours writes). */
const PAGE = process.env.PAGE_404 ?? '<!DOCTYPE html><title>404 Not Found</title>';
const YEAR_MS = 365 * 24 * 3600 * 1000;

export function createLogger() {
  const destination = pino.destination({ dest: process.env.LOG_FILE, sync: false, minLength: 4096 });
  return { logger: pino({ level: 'error', base: undefined }, destination), destination };
}

/** True when Accept prefers a JSON type by its q-values (RFC 9110 12.5.1), as ours decides. */
export function prefersJson(accept) {
  if (!accept) return false;
  let json = -1;
  let html = -1;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().split(';');
    const qParam = params.find((p) => p.trim().startsWith('q='));
    const q = qParam ? Number(qParam.trim().slice(2)) : 1;
    const type = range.trim().toLowerCase();
    if (type === 'application/json' || type === 'application/problem+json' || (type.startsWith('application/') && type.endsWith('+json'))) json = Math.max(json, q);
    else if (type === 'text/html' || type === '*/*' || type === 'text/*') html = Math.max(html, q);
  }
  return json > 0 && json > html;
}

/** `about:blank` for a path without a parent segment, else the problem base and that segment. */
export function problemType(base, path) {
  const cut = path.lastIndexOf('/');
  if (cut <= 0) return 'about:blank';
  const parent = path.lastIndexOf('/', cut - 1);
  return `${base}/problem/${path.slice(parent + 1, cut)}`;
}

/** Status, headers and body of the 404 for one request; logs its lines. */
export function notFound(log, { method, url, host, accept, referer }) {
  const cut = url.search(/[?#]/);
  const path = cut < 0 ? url : url.slice(0, cut);
  const detail = `No route found for "${method} ${path}"${referer ? ` (from "${referer}")` : ''}`;
  const type = problemType(`http://${host}`, path);
  log.error(detail);
  if (type !== 'about:blank') log.error(`Incident: - Type: ${type} - Cause: 404 - Title: Not Found`);
  const now = Date.now();
  const headers = {
    'x-robots-tag': 'none',
    'cache-control': 'immutable, max-age=31536000, public',
    expires: new Date(now + YEAR_MS).toUTCString(),
    vary: 'Accept',
  };
  if (prefersJson(accept)) {
    headers['content-type'] = 'application/problem+json';
    return { headers, body: JSON.stringify({ type, title: 'Not Found', status: 404, detail, instance: path }) };
  }
  headers['content-type'] = 'text/html; charset=UTF-8';
  return { headers, body: PAGE };
}
