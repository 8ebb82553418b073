/**
 * The examples of docs/, run as a reader would run them. The library example: its code block, with
 * the package name pointing at this checkout's src/index.ts, as an ES module of its own in a fresh
 * directory. The shell blocks and the supply chain's commands: as they stand, by bash, in one fresh
 * clone, in the order a reader meets them (`npm ci` first). README's quick start has a file of its
 * own (test/quick-start.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { renderPoster } from '../src/poster/library.js';
import { freshCheckout, ROOT } from './helpers/checkout.js';
import { blockUnder, sectionOf } from './helpers/docs.js';
import { runShellBlock, sof0Size } from './helpers/shell-block.js';

const PACKAGE_NAME = 'problem-service';

describe('the library example of docs/library.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-example-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('imports renderPoster and writePoster, awaits them, and writes the poster it names', async () => {
    const { code } = blockUnder('docs/library.md', 'Posters', 'js');
    assert.match(code, new RegExp(`^import \\{[^}]*\\brenderPoster\\b[^}]*\\} from '${PACKAGE_NAME}';$`, 'm'));
    const entry = pathToFileURL(resolve('src/index.ts')).href;
    writeFileSync(join(dir, 'example.mjs'), code.replace(`from '${PACKAGE_NAME}'`, `from '${entry}'`));
    const run = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), 'example.mjs'], { cwd: dir, encoding: 'utf8' });
    assert.equal(run.stderr, '');
    assert.equal(run.status, 0);
    const printed = /^(public\/posters\/[0-9a-f]{32}\.jpg) (\d+)\n$/.exec(run.stdout);
    assert.ok(printed, `the example printed ${JSON.stringify(run.stdout)}`);
    const expected = await renderPoster({ title: 'Año Nuevo', subtitle: 'en la azotea' });
    assert.equal(Number(printed[2]), expected.byteLength, 'renderPoster was not awaited: no byte length');
    assert.ok(existsSync(join(dir, printed[1]!)));
    assert.ok(readFileSync(join(dir, printed[1]!)).equals(expected), 'the written file is the rendered poster');
  });
});

describe('the commands of docs/, on a fresh clone', { timeout: 300_000 }, () => {
  const checkout = freshCheckout({ installed: false });
  // npm ci takes the locked packages from npm's cache when it holds them; PORT=0, since a block
  // that starts the service reads the address from what start-up prints.
  const env = { PORT: '0', npm_config_prefer_offline: 'true' };

  it('docs/posters-and-api.md: npm ci, a key pair, a token, a poster from the command line', { timeout: 240_000 }, async () => {
    const { code } = blockUnder('docs/posters-and-api.md', 'Keys and tokens', 'sh');
    const run = await runShellBlock(code, checkout, env);
    assert.equal(run.code, 0, `the block failed (${run.signal ?? run.code}):\n${run.stderr}`);
    assert.ok(existsSync(join(checkout, 'config/jwt/private.pem')) && existsSync(join(checkout, 'config/jwt/public.pem')), 'no key pair');
    assert.match(run.stdout, /^wrote \S+config\/jwt\/private\.pem and \S+config\/jwt\/public\.pem$/m);
    assert.match(run.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/m, 'no token printed');
    const written = /^(public\/posters\/[0-9a-f]{32}\.jpg)$/m.exec(run.stdout)?.[1];
    assert.ok(written, `the poster command printed no path: ${run.stdout}`);
    assert.deepEqual(sof0Size(readFileSync(join(checkout, written))), { width: 1125, height: 2436 });
  });

  it("docs/operating.md: the operator's listener answers /healthz, /readyz and /metrics, and the service stops", { timeout: 120_000 }, async () => {
    const { code } = blockUnder('docs/operating.md', "The operator's listener", 'sh');
    const run = await runShellBlock(code, checkout, env);
    assert.equal(run.code, 0, `the block failed (${run.signal ?? run.code}):\n${run.stderr}`);
    const [alive, ready, metric] = run.stdout.trim().split('\n');
    assert.equal(alive, '{"status":"alive"}');
    assert.equal((JSON.parse(ready!) as { ready: boolean }).ready, true, ready);
    assert.match(metric!, /^process_start_time_seconds \d+(\.\d+)?$/);
    const url = /^listening on (\S+)$/m.exec(readFileSync(join(checkout, 'service.log'), 'utf8'))![1]!;
    await assert.rejects(fetch(url), 'the service still answers after the block');
  });

  it('docs/development.md: the supply chain as its commands show it', async () => {
    // The commands of the table's second column, each run as it stands.
    const rows = sectionOf('docs/development.md', 'Supply chain').split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| what'));
    const commands = rows.map((row) => /`([^`]+)`/.exec(row.split('|')[2]!)![1]!);
    assert.deepEqual(commands, [
      'npm ls --omit=dev --all',
      'npm run sbom',
      'grep -B4 hasInstallScript package-lock.json',
      'bash scripts/check-reproducible-build',
      'npm ls --depth=0',
    ]);
    const outputs = new Map<string, string>();
    // Two tsc builds (half a minute) that .ci/run makes on every run, with this very command.
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    assert.match(ci, /^bash scripts\/check-reproducible-build$/m);
    for (const command of commands.filter((c) => c !== 'bash scripts/check-reproducible-build')) {
      const run = await runShellBlock(`${command}\n`, checkout, env);
      assert.equal(run.code, 0, `${command}: ${run.stderr}`);
      outputs.set(command, run.stdout);
    }
    const runtime = outputs.get('npm ls --omit=dev --all')!.trim().split('\n').slice(1);
    assert.deepEqual(runtime.map((line) => line.replace(/^[^\w@]+/, '').replace(/@[^@]+$/, '')), ['jose'], 'jose, with nothing of its own');
    const sbom = JSON.parse(readFileSync(join(checkout, 'sbom.cdx.json'), 'utf8')) as { components: { name: string }[] };
    assert.ok(sbom.components.some((c) => c.name === 'jose') && sbom.components.some((c) => c.name === 'DejaVuSans.ttf'), 'the SBOM lists jose and the fonts');
    const installers = outputs.get('grep -B4 hasInstallScript package-lock.json')!;
    assert.deepEqual([...installers.matchAll(/"node_modules\/([^"]+)": \{/g)].map((m) => m[1]), ['esbuild'], 'esbuild alone declares an install script');
    const direct = outputs.get('npm ls --depth=0')!.trim().split('\n').slice(1).map((line) => line.replace(/^[^\w@]+/, '').replace(/@[^@]+$/, ''));
    assert.deepEqual(direct.sort(), ['@types/node', 'c8', 'jose', 'tsx', 'typescript']);
  });
});
