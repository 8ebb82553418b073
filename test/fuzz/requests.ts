/**
 * The case generator: one connection's worth of raw HTTP/1.1, from one request to five
 * pipelined ones, written whole, in small pieces, or followed by a half-close. Each case is a
 * pure function of the seed and its index, so any case can be replayed on its own.
 */
import { extraHeaders, hostileText, type GeneratorEnv, type Header } from './headers.js';
import { Random } from './rng.js';
import { buildTarget } from './targets.js';

export interface FuzzCase {
  readonly index: number;
  /** Everything written on the connection, latin1 (one character per byte). */
  readonly text: string;
  /** Sizes of the writes: one for a fast client, many for a slow one. */
  readonly pieces: readonly number[];
  /** Pause between two pieces. */
  readonly pauseMs: number;
  /** Whether the client ends its side (socket.end()) after writing. */
  readonly halfClose: boolean;
}

const METHODS: readonly (readonly [number, string])[] = [
  [30, 'GET'],
  [12, 'HEAD'],
  [12, 'POST'],
  [4, 'PUT'],
  [4, 'DELETE'],
  [5, 'OPTIONS'],
  [3, 'PATCH'],
  [3, 'TRACE'],
  [2, 'PROPFIND'],
  [5, 'CONNECT'],
  [1, 'MKCOL'],
  [1, 'LOCK'],
  [1, 'SEARCH'],
  [1, 'QUERY'],
  [1, 'get'],
  [1, 'FOO'],
  [1, 'G\xc9T'],
];

const HOSTS = ['localhost', '127.0.0.1', 'example.org', 'api.example.com:8443', '[::1]:80', 'LOCALHOST', 'sub.example.org'];
const BAD_HOSTS = ['a b', 'évil.test', 'a/b', 'x:y:z', '[::1', 'h:999999', '', ' ', 'a\tb', '"x"', 'host@evil', '-'.repeat(300)];

/** One request: head and body; `last` lets it leave its body incomplete. */
function buildRequest(r: Random, env: GeneratorEnv, last: boolean): string {
  const allowed = env.excludedMethods.length === 0 ? METHODS : METHODS.filter(([, m]) => !env.excludedMethods.includes(m));
  const method = r.weighted(allowed);
  const target = buildTarget(r, method, env.secrets);
  const version = r.weighted([[92, 'HTTP/1.1'], [5, 'HTTP/1.0'], [1, 'HTTP/1.2'], [1, 'HTTP/2.0'], [1, 'http/1.1']]);
  const headers: Header[] = [];
  const hostShape = r.weighted([[84, 'one'], [5, 'none'], [5, 'two'], [6, 'bad']]);
  if (hostShape === 'one' || hostShape === 'two') headers.push(['Host', r.pick(HOSTS)]);
  if (hostShape === 'two') headers.push([r.pick(['Host', 'host', 'HOST']), r.pick(HOSTS)]);
  if (hostShape === 'bad') headers.push(['Host', r.chance(0.2) ? hostileText(r, 1024) : r.pick(BAD_HOSTS)]);
  headers.push(...extraHeaders(r, env));
  if (target.includes('/api/posters') && r.chance(0.6)) {
    headers.push(['Authorization', `Bearer ${env.validToken}`], ['Content-Type', 'application/json']);
  }
  if (r.chance(0.04)) headers.push(['Expect', '100-continue']);
  const { framing, body } = buildBody(r, method, target, last);
  headers.push(...framing);
  shuffleSome(r, headers);
  return `${method} ${target} ${version}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n${body}`;
}

/** Moves a field or two, so Host is not always first. */
function shuffleSome(r: Random, headers: Header[]): void {
  if (headers.length < 2 || r.chance(0.5)) return;
  const i = r.int(0, headers.length - 1);
  const j = r.int(0, headers.length - 1);
  [headers[i], headers[j]] = [headers[j]!, headers[i]!];
}

const POSTER_BODIES = [
  '{"title":"Fuzz"}',
  '{"title":"Fuzz","quality":101}',
  '{"title":"","shapes":"x"}',
  '{"title":"a","background":{"from":"#zzzzzz","to":"#000"}}',
  '{"title":"a","shapes":[' + '{"kind":"circle"},'.repeat(40) + '{}]}',
  '{"title":' + '['.repeat(5000) + ']'.repeat(5000) + '}',
  '{"title":"' + 'x'.repeat(5000) + '"}',
  '{"title":"\\u0000\\ud800","body":"\\n\\n"}',
  '[1,2,3]',
  'null',
  '{"title":"a",',
  '\xff\xfe{}',
  '{"__proto__":{"title":"x"},"title":"y"}',
];

/** Framing fields and body: none, Content-Length (right or wrong), chunked, or odd codings. */
function buildBody(r: Random, method: string, target: string, last: boolean): { framing: Header[]; body: string } {
  const wantsBody = method === 'POST' || method === 'PUT' || method === 'PATCH' || r.chance(0.08);
  if (!wantsBody) return { framing: r.chance(0.05) ? [['Content-Length', '0']] : [], body: '' };
  const content = target.includes('/api/posters') && r.chance(0.8)
    ? r.pick(POSTER_BODIES)
    : r.weighted([[5, r.text('abcdef{}":,', r.length(256))], [1, 'z'.repeat(r.int(60 * 1024, 70 * 1024))]]);
  const shape = r.weighted([[50, 'length'], [20, 'chunked'], [8, 'coding'], [6, 'short'], [6, 'long'], [6, 'badLength'], [4, 'none']]);
  switch (shape) {
    case 'length':
      return { framing: [['Content-Length', String(content.length)]], body: content };
    case 'chunked':
      return { framing: [['Transfer-Encoding', r.pick(['chunked', 'Chunked', ' chunked'])]], body: chunked(r, content) };
    case 'coding': {
      const value = r.pick(['gzip', 'gzip, chunked', 'chunked, gzip', 'identity', 'x', 'chunked, chunked', 'deflate']);
      const both: Header[] = r.chance(0.3) ? [['Content-Length', String(content.length)]] : [];
      const twice: Header[] = r.chance(0.2) ? [['Transfer-Encoding', 'chunked']] : [];
      const encoded = value.trim().toLowerCase().endsWith('chunked') ? chunked(r, content) : content;
      return { framing: [['Transfer-Encoding', value], ...twice, ...both], body: encoded };
    }
    case 'short':
      // More body than announced: the rest reads as the start of the next request.
      return { framing: [['Content-Length', String(Math.max(0, content.length - r.int(1, 20)))]], body: content };
    case 'long':
      // Less body than announced: only ever the last request, which then waits for the rest.
      return last
        ? { framing: [['Content-Length', String(content.length + r.int(1, 5000))]], body: content }
        : { framing: [['Content-Length', String(content.length)]], body: content };
    case 'badLength':
      return {
        framing: r.pick<Header[]>([
          [['Content-Length', '-1']],
          [['Content-Length', '1e3']],
          [['Content-Length', `${content.length}, ${content.length}`]],
          [['Content-Length', String(content.length)], ['Content-Length', String(content.length + 1)]],
          [['Content-Length', '9'.repeat(30)]],
          [['Content-Length', `+${content.length}`]],
        ]),
        body: content,
      };
    default:
      return { framing: [], body: '' };
  }
}

/** `content` in 1 to 4 chunks, with odd but valid size lines now and then, and maybe trailers. */
function chunked(r: Random, content: string): string {
  let out = '';
  let at = 0;
  while (at < content.length) {
    const size = Math.min(content.length - at, r.int(1, Math.max(1, Math.ceil(content.length / 2))));
    const hex = size.toString(16);
    const sizeLine = r.weighted([[6, hex], [1, hex.toUpperCase()], [1, `00${hex}`], [1, `${hex};ext=1`], [1, `${hex};a="b"`]]);
    out += `${sizeLine}\r\n${content.slice(at, at + size)}\r\n`;
    at += size;
  }
  return out + (r.chance(0.2) ? '0\r\nX-Trailer: 1\r\n\r\n' : '0\r\n\r\n');
}

/** The case at `index` of the run seeded with `seed`. */
export function generateCase(seed: number, index: number, env: GeneratorEnv): FuzzCase {
  const r = new Random(seed, index);
  const count = r.weighted([[50, 1], [15, 2], [15, 3], [10, 4], [10, 5]]);
  let text = '';
  for (let i = 0; i < count; i++) text += buildRequest(r, env, i === count - 1);
  if (r.chance(0.03)) text += r.pick(['\r\n', 'GET / HTTP/1.1\r\nHost: localhost\r\n', 'garbage\r\n\r\n', '\x00\x01\x02']);
  const delivery = r.weighted([[60, 'whole'], [20, 'pieces'], [15, 'halfClose'], [5, 'piecesHalfClose']]);
  const slow = delivery === 'pieces' || delivery === 'piecesHalfClose';
  return {
    index,
    text,
    pieces: slow ? splitSizes(r, text.length) : [text.length],
    pauseMs: slow ? r.int(1, 25) : 0,
    halfClose: delivery === 'halfClose' || delivery === 'piecesHalfClose',
  };
}

/** At most 40 pieces, small ones first, so a slow write ends within a second or so. */
function splitSizes(r: Random, total: number): number[] {
  const sizes: number[] = [];
  let left = total;
  const floor = Math.max(1, Math.ceil(total / 40));
  while (left > 0) {
    const size = Math.min(left, r.chance(0.5) ? r.int(1, 7) : r.int(floor, floor * 2));
    sizes.push(size);
    left -= size;
    if (sizes.length === 39) break;
  }
  if (left > 0) sizes.push(left);
  return sizes;
}
