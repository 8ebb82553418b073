import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';

describe('npm run sbom', () => {
  it('writes a CycloneDX JSON document of the runtime tree to sbom.cdx.json', { timeout: 60_000 }, () => {
    rmSync('sbom.cdx.json', { force: true });
    const run = spawnSync('npm', ['run', 'sbom'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /wrote sbom\.cdx\.json/);
    const sbom = JSON.parse(readFileSync('sbom.cdx.json', 'utf8')) as { bomFormat: string; components: { name: string }[] };
    rmSync('sbom.cdx.json');
    assert.equal(sbom.bomFormat, 'CycloneDX');
    assert.deepEqual(sbom.components.map((c) => c.name), ['jose']);
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
