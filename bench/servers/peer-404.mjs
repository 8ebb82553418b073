// What the peers of the mix benchmarks share: ours' bytes (the prod 404 page, the entry point's
// two documents), the lean pieces of the 404 a user of any framework writes (the path cut at `?`,
// a plain Accept check, the Expires string made once a second, the problem type), and pino with
// its asynchronous destination as pino's docs show it. Each peer (servers/fastify-mix.mjs,
// hono-mix.mjs, node-mix.mjs) writes its handlers in its framework's own way around these.
import pino from 'pino';

/** Our prod HTML page for a 404 (the exact bytes ours writes), given by the benchmark. */
export const PAGE_404 = Buffer.from(process.env.PAGE_404 ?? '<!DOCTYPE html><title>404 Not Found</title>');
export const HTML = 'text/html; charset=UTF-8';
export const PROBLEM_JSON = 'application/problem+json';
export const CACHE_404 = 'immutable, max-age=31536000, public';
export const CACHE_HOME = 'no-cache, private';
/** What OPTIONS on `/` answers (204), as ours does. */
export const ALLOW_HOME = 'OPTIONS, GET, HEAD';
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** pino writing NDJSON to LOG_FILE through its asynchronous destination (pino's docs, "Asynchronous logging"). */
export function createLogger() {
  const destination = pino.destination({ dest: process.env.LOG_FILE, sync: false, minLength: 4096 });
  return { logger: pino({ level: 'error', base: undefined }, destination), destination };
}

/**
 * JSON when the client names a JSON type and neither HTML nor `*\/*`: a plain check, not a
 * q-value parser. Ours weighs q-values (src/http/negotiation.ts); on every Accept of the mix
 * (none, `*\/*`, a browser's, `application/json`, axios' `application/json, text/plain, *\/*`)
 * the two agree, and bench:mix's check holds every answer to ours'.
 */
export function wantsJson(accept) {
  return accept !== undefined && accept.includes('json') && !accept.includes('*/*') && !accept.includes('html');
}

/** The path of a request target: up to its `?`. */
export function pathOf(url) {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

let expiresSecond = -1;
let expires = '';
/** A year from now as an HTTP date, made once a second (as Node and undici keep their Date). */
export function expiresHeader() {
  const second = Math.floor(Date.now() / 1000);
  if (second !== expiresSecond) {
    expiresSecond = second;
    expires = new Date(second * 1000 + YEAR_MS).toUTCString();
  }
  return expires;
}

/** `about:blank` for a path without a parent segment, else the problem base and that segment. */
export function problemType(scheme, host, path) {
  const cut = path.lastIndexOf('/');
  if (cut <= 0) return 'about:blank';
  const parent = path.lastIndexOf('/', cut - 1);
  return `${scheme}://${host}/problem/${path.slice(parent + 1, cut)}`;
}

/**
 * The 404's work apart from its framework: logs the error line (and the incident line for a typed
 * problem) through `log`, and returns the body and whether it is JSON: ours' HTML page, or the
 * problem document (whose detail carries the Referer: ours answers it with `Vary: Accept, Referer`).
 */
export function notFound(log, method, url, scheme, host, accept, referer) {
  const path = pathOf(url);
  const detail = referer === undefined ? `No route found for "${method} ${path}"` : `No route found for "${method} ${path}" (from "${referer}")`;
  const type = problemType(scheme, host, path);
  log.error(detail);
  if (type !== 'about:blank') log.error(`Incident: - Type: ${type} - Cause: 404 - Title: Not Found`);
  if (wantsJson(accept)) return { json: true, body: JSON.stringify({ type, title: 'Not Found', status: 404, detail, instance: path }) };
  return { json: false, body: PAGE_404 };
}

/**
 * The entry point (`GET /`) as ours renders it, HTML or JSON, for the Host it was asked on: ours'
 * documents with `{origin}` replaced, kept per Host and kind (as ours keeps them), at most 64.
 */
export function createHome(scheme = 'http') {
  const templates = { html: (process.env.HOME_HTML ?? '').split('{origin}'), json: (process.env.HOME_JSON ?? '{}').split('{origin}') };
  const rendered = { html: new Map(), json: new Map() };
  return (json, host) => {
    const kind = json ? 'json' : 'html';
    let body = rendered[kind].get(host);
    if (body === undefined) {
      body = Buffer.from(templates[kind].join(`${scheme}://${host}`));
      if (rendered[kind].size >= 64) rendered[kind].clear();
      rendered[kind].set(host, body);
    }
    return body;
  };
}

/**
 * Answers an unrouted fastify request as ours answers it: the lines through `request.log`, the
 * five headers with `reply.header`, the body as a Buffer when it is JSON (with a string, fastify
 * appends `; charset=utf-8` to a JSON type, which ours does not send). `request.host`: the Host
 * header, or h2's :authority.
 */
export function replyNotFound(request, reply, scheme) {
  const { headers } = request;
  const { json, body } = notFound(request.log, request.method, request.url, scheme, request.host, headers.accept, headers.referer);
  return reply
    .code(404)
    .header('x-robots-tag', 'none')
    .header('cache-control', CACHE_404)
    .header('expires', expiresHeader())
    .header('content-type', json ? PROBLEM_JSON : HTML)
    .header('vary', json ? 'Accept, Referer' : 'Accept')
    .send(json ? Buffer.from(body) : body);
}
