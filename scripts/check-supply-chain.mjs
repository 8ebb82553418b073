#!/usr/bin/env node
// Verifies the supply chain of what `npm ci` installed, without trusting npm's word for it:
//  1. the runtime tree is `jose` alone;
//  2. every lockfile entry resolves to the npm registry (an entry without `resolved` is fetched
//     from the configured registry, which is checked to be npm's) and carries a sha512 `integrity`;
//  3. every installed package's registry signature verifies: the registry signs
//     `<name>@<version>:<integrity>` with ECDSA P-256 (its public keys at /-/npm/v1/keys), and
//     the signed integrity is the lockfile's (what `npm audit signatures` checks for registry
//     signatures; its provenance check needs the sigstore service, which CI cannot reach);
//  4. `npm pack` would ship only what a user needs.
// Prints one line per check and exits 1 on the first failing one.
import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

const REGISTRY = 'https://registry.npmjs.org/';
/** What the package may contain: the build, the font, the CLI launchers, the docs. */
const SHIPPED = [/^dist\//, /^assets\//, /^bin\//, /^scripts\/build-if-needed\.mjs$/, /^(README\.md|LICENSE|SECURITY\.md|package\.json)$/, /^docs\/[\w-]+\.md$/];
/** The pages of docs/, which README links to. */
const DOC_PAGES = readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
/** Never shipped, wherever it sits: keys, env files, tests, sources. */
const NEVER = [/\.pem$/, /(^|\/)\.env/, /\.test\.[cm]?[jt]s$/, /^(test|src|bench|config|var)\//];

const npm = (...args) => execFileSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
function fail(message) {
  console.error(`supply chain: ${message}`);
  process.exit(1);
}

// 1. The runtime tree.
const runtime = npm('ls', '--omit=dev', '--all', '--parseable').trim().split('\n').slice(1).map((p) => p.replace(/.*\/node_modules\//, ''));
if (runtime.join(' ') !== 'jose') fail(`runtime dependencies are '${runtime.join(' ')}': jose must be the only one`);
console.log('runtime dependencies: jose');

// 2. The lockfile.
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const installed = Object.entries(lock.packages)
  .filter(([path]) => path !== '')
  .map(([path, entry]) => ({ path, name: entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 13), ...entry }));
const configured = npm('config', 'get', 'registry').trim();
if (configured !== REGISTRY) fail(`the configured registry is ${configured}, not ${REGISTRY}`);
for (const p of installed) {
  if (p.resolved !== undefined && !p.resolved.startsWith(REGISTRY)) fail(`${p.path} resolves to ${p.resolved}, not the npm registry`);
  if (p.link || p.version === undefined) fail(`${p.path} is not a registry package`);
  if (!/^sha512-[A-Za-z0-9+/]+=*$/.test(p.integrity ?? '')) fail(`${p.path} has no sha512 integrity`);
}
console.log(`lockfile: ${installed.length} entries, each from the npm registry with a sha512 integrity`);

// 3. Registry signatures and integrity. A registry mirror may serve neither the signing keys
// nor the signatures; then the integrity is still cross-checked against the registry's own
// metadata, the line says signatures were not checked, and REQUIRE_SIGNATURES=1 makes it fatal.
async function getJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw Object.assign(new Error(`${url}: HTTP ${res.status}`), { status: res.status });
  return res.json();
}
const keysDoc = await getJson(`${REGISTRY}-/npm/v1/keys`).catch((err) => (err.status === 404 ? undefined : Promise.reject(err)));
const publicKeys = new Map((keysDoc?.keys ?? []).map((k) => [k.keyid, createPublicKey({ key: Buffer.from(k.key, 'base64'), format: 'der', type: 'spki' })]));
if (publicKeys.size === 0 && process.env.REQUIRE_SIGNATURES === '1') fail('the registry serves no signing keys');

async function checkPackage(p) {
  const doc = await getJson(`${REGISTRY}${p.name.replace('/', '%2F')}/${p.version}`);
  if (doc.dist?.integrity !== p.integrity) return `${p.name}@${p.version}: the registry's integrity differs from the lockfile's`;
  if (publicKeys.size === 0) return undefined;
  const signed = Buffer.from(`${p.name}@${p.version}:${p.integrity}`);
  for (const s of doc.dist?.signatures ?? []) {
    const key = publicKeys.get(s.keyid);
    if (key && verify('sha256', signed, key, Buffer.from(s.sig, 'base64'))) return undefined;
  }
  return `${p.name}@${p.version}: no registry signature verifies`;
}
const problems = [];
for (let i = 0; i < installed.length; i += 8) {
  const batch = await Promise.all(installed.slice(i, i + 8).map((p) => checkPackage(p).catch((err) => `${p.name}@${p.version}: ${err.message}`)));
  problems.push(...batch.filter((b) => b !== undefined));
}
if (problems.length > 0) fail(problems.join('; '));
console.log(
  publicKeys.size > 0
    ? `registry signatures: ${installed.length} of ${installed.length} packages verified, integrity as locked`
    : `registry integrity: ${installed.length} of ${installed.length} packages as locked; signatures not checked: this registry serves no signing keys`,
);

// 4. What `npm pack` would ship.
const [packed] = JSON.parse(npm('pack', '--dry-run', '--json'));
const files = packed.files.map((f) => f.path);
const stray = files.filter((f) => !SHIPPED.some((re) => re.test(f)) || NEVER.some((re) => re.test(f)));
if (stray.length > 0) fail(`npm pack would ship ${stray.join(', ')}`);
for (const needed of ['dist/server.js', 'dist/index.js', 'dist/cli/jwt.js', 'dist/cli/poster.js', 'README.md', ...DOC_PAGES, 'LICENSE', 'SECURITY.md', 'assets/fonts/LICENSE-DejaVu.txt']) {
  if (!files.includes(needed)) fail(`npm pack would not ship ${needed}`);
}
console.log(`npm pack: ${files.length} files, only dist/, assets/, bin/, README, docs/, LICENSE, SECURITY.md`);
