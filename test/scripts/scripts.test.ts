import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freshCheckout } from '../helpers/checkout.js';

interface CycloneDx {
  bomFormat: string;
  metadata: { component: { name: string; version: string } };
  components: { name: string; type: string; hashes?: { alg: string; content: string }[]; licenses: { license: { id: string } }[] }[];
}

describe('npm run sbom', () => {
  it('names the package, not the checkout folder, and lists jose and the DejaVu fonts with their licence', { timeout: 60_000 }, () => {
    // A clone in a folder of any name (fresh-checkout-XXXXXX).
    const checkout = freshCheckout();
    const run = spawnSync('npm', ['run', 'sbom', '--silent'], { cwd: checkout, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'wrote sbom.cdx.json\n');
    const sbom = JSON.parse(readFileSync(join(checkout, 'sbom.cdx.json'), 'utf8')) as CycloneDx;
    assert.equal(sbom.bomFormat, 'CycloneDX');
    assert.equal(sbom.metadata.component.name, 'problem-service');
    assert.equal(sbom.metadata.component.version, '0.1.0');
    assert.deepEqual(
      sbom.components.map((c) => [c.type, c.name, c.licenses.map((l) => l.license.id).join()]),
      [['library', 'jose', 'MIT'], ['file', 'DejaVuSans-Bold.ttf', 'Bitstream-Vera'], ['file', 'DejaVuSans.ttf', 'Bitstream-Vera']],
    );
    const font = readFileSync(join(checkout, 'assets', 'fonts', 'DejaVuSans.ttf'));
    assert.deepEqual(sbom.components[2]!.hashes, [{ alg: 'SHA-256', content: createHash('sha256').update(font).digest('hex') }]);
  });
});

describe('the benchmark runner', () => {
  it('forwards --write to every benchmark and prints progress one line each off a terminal', () => {
    const runner = readFileSync('bench/run-all.mjs', 'utf8');
    assert.match(runner, /\.\.\.args\]/, 'arguments are not forwarded');
    const progress = spawnSync(process.execPath, ['--input-type=module', '-e', "import { progress } from './bench/lib/results.mjs'; progress('round 1/2'); progress('round 2/2');"], { encoding: 'utf8' });
    assert.equal(progress.stderr, 'round 1/2\nround 2/2\n');
    assert.ok(existsSync('bench/run-all.mjs'));
  });
});
