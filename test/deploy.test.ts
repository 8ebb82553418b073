/**
 * The shipped systemd unit, deploy/systemd/problem-service.service, read as text: it must start
 * the built server and stop it the way the service expects. systemd itself cannot run here (no
 * init system in a test process), so this checks the settings, not their effect; the nginx site
 * file is run for real in test/e2e/nginx.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import { STOP_GRACE_MS } from '../src/server.js';

const UNIT_FILE = 'deploy/systemd/problem-service.service';

/** `[Section]` -> key -> every value, in order (systemd keys may repeat); comments dropped. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(current && eq > 0, `${UNIT_FILE}:${index + 1}: not a key=value line inside a section: ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

const unit = parseUnit(readFileSync(UNIT_FILE, 'utf8'));
const service = unit.get('Service') ?? new Map<string, string[]>();

/** The one value of a [Service] key; fails when it is missing or repeated. */
function single(key: string): string {
  const values = service.get(key) ?? [];
  assert.equal(values.length, 1, `${UNIT_FILE}: [Service] ${key} wanted once, found ${values.length} times`);
  return values[0]!;
}

/** systemd time spans used here: `15`, `15s`, `1min 30s`. */
function seconds(span: string): number {
  let total = 0;
  for (const [, amount, unitName] of span.matchAll(/(\d+)\s*(min|s)?/g)) {
    total += Number(amount) * (unitName === 'min' ? 60 : 1);
  }
  return total;
}

describe('deploy/systemd/problem-service.service', () => {
  it('has the sections systemd needs to install it', () => {
    assert.deepEqual([...unit.keys()], ['Unit', 'Service', 'Install']);
    assert.deepEqual(unit.get('Install')?.get('WantedBy'), ['multi-user.target']);
  });

  it('runs node dist/server.js from an absolute install directory', () => {
    assert.match(single('ExecStart'), /^\/\S*\/node dist\/server\.js$/);
    assert.ok(posix.isAbsolute(single('WorkingDirectory')), 'WorkingDirectory must be absolute');
  });

  it('runs in prod with credentials from an EnvironmentFile', () => {
    assert.ok((service.get('Environment') ?? []).includes('APP_ENV=prod'), 'Environment=APP_ENV=prod');
    assert.ok(posix.isAbsolute(single('EnvironmentFile').replace(/^-/, '')), 'EnvironmentFile must be an absolute path');
  });

  it('stops with SIGTERM and waits longer than the service\'s graceful stop before killing', () => {
    assert.equal(single('KillSignal'), 'SIGTERM');
    const timeout = seconds(single('TimeoutStopSec'));
    // The service waits STOP_GRACE_MS for requests in flight, then flushes its log.
    assert.ok(timeout >= STOP_GRACE_MS / 1000 + 2, `TimeoutStopSec=${timeout} s leaves no room after the ${STOP_GRACE_MS / 1000} s grace`);
    assert.ok(timeout <= 30, `TimeoutStopSec=${timeout} s: a stuck stop should not hold a restart that long`);
  });

  it('restarts after a crash but not after a clean stop', () => {
    assert.equal(single('Restart'), 'on-failure');
  });

  it('runs as a dedicated user, not root', () => {
    assert.notEqual(single('User'), 'root');
    assert.match(single('User'), /^[a-z][a-z0-9-]*$/);
  });

  it('is hardened, with write access only to var/ and public/posters/', () => {
    assert.equal(single('NoNewPrivileges'), 'yes');
    assert.equal(single('ProtectSystem'), 'strict');
    assert.equal(single('PrivateTmp'), 'yes');
    const home = single('WorkingDirectory');
    const writable = single('ReadWritePaths').split(/\s+/).map((p) => p.replace(/^-/, ''));
    assert.deepEqual(writable.sort(), [posix.join(home, 'public/posters'), posix.join(home, 'var')]);
  });

  it('does not forbid writable executable memory, which Node\'s JIT needs', () => {
    assert.notEqual(service.get('MemoryDenyWriteExecute')?.at(-1), 'yes');
  });
});
