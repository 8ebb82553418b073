// The servers of bench:tls beside the ones that serve HTTPS themselves (lib/measure.mjs's
// startChild): nginx terminating TLS and h2 in front of ours with the shipped site file
// (deploy/nginx/problem-service.conf, filled in by the e2e tests' helpers), pinned to a core.
// Every server is { url, pids(), stop() }: pids() are the processes whose CPU time it spends.
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROXY_ADDRESS, SITE_FILE, freePort, mainConfig, renderSite, startNginx } from '../../test/e2e/nginx-helpers.ts';
import { startChild } from './measure.mjs';

const root = (path) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** The test certificate (EC P-256, for localhost and 127.0.0.1), its key and the CA that signed it. */
export const TLS_FILES = Object.freeze({
  cert: root('test/fixtures/tls/localhost-chain.pem'),
  key: root('test/fixtures/tls/localhost.key'),
  ca: root('test/fixtures/tls/ca.pem'),
});

/** A GET over TLS that checks the certificate against the test CA; resolves with the body. */
export function httpsText(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca: readFileSync(TLS_FILES.ca), headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
}

/** The children of a process (nginx's master: its worker). */
function childrenOf(pid) {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(' ').map(Number) : [];
}

/** The site's count of idle upstream connections nginx keeps, as shipped. */
const SHIPPED_KEEPALIVE = 'keepalive 16;';

/**
 * Ours on plain HTTP (`ourEnv` plus TRUSTED_PROXIES) behind nginx, nginx terminating TLS and h2
 * (`listen … ssl http2`, nginx 1.22's spelling, which the site leaves to the operator) and
 * proxying HTTP/1.1 with keep-alive, both pinned to `cpu`. `keepalive` replaces the site's count
 * of idle upstream connections (an operator's edit), otherwise kept as shipped. nginx's
 * keepalive_requests is raised: it ends a client's connection after 1,000 requests (h2 with
 * GOAWAY), and h2load opens no new h2 connection after a GOAWAY; ours ends none.
 */
export async function startBehindNginx(script, ourEnv, dir, { cpu, nodeArgs = [], keepalive }) {
  mkdirSync(dir, { recursive: true });
  const ours = await startChild(script, [], { ...ourEnv, TRUSTED_PROXIES: PROXY_ADDRESS }, nodeArgs, { cpu });
  const [httpsPort, httpPort] = [await freePort(), await freePort()];
  let site = renderSite({
    UPSTREAMS: `server ${new URL(ours.url).host};`,
    HTTP_LISTEN: `127.0.0.1:${httpPort}`,
    HTTPS_LISTEN: `127.0.0.1:${httpsPort} http2`,
    SERVER_NAME: 'localhost',
    TLS_CERTIFICATE: TLS_FILES.cert,
    TLS_CERTIFICATE_KEY: TLS_FILES.key,
  });
  if (keepalive !== undefined) {
    if (site.split(SHIPPED_KEEPALIVE).length !== 2) throw new Error(`${SITE_FILE}: no single \`${SHIPPED_KEEPALIVE}\` to replace`);
    site = site.replace(SHIPPED_KEEPALIVE, `keepalive ${keepalive};`);
  }
  writeFileSync(join(dir, 'problem-service.conf'), site);
  writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir, ['keepalive_requests 1000000;']));
  let nginx;
  try {
    nginx = await startNginx(dir, [httpsPort]);
  } catch (err) {
    await ours.stop();
    throw err;
  }
  const pids = () => [ours.child.pid, nginx.child.pid, ...childrenOf(nginx.child.pid)];
  for (const pid of pids()) execFileSync('taskset', ['-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
  return {
    url: `https://127.0.0.1:${httpsPort}`,
    pids,
    async stop() {
      await nginx.stop();
      await ours.stop();
    },
  };
}
