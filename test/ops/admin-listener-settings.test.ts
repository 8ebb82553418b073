/**
 * ADMIN_PORT and ADMIN_HOST as the settings read them: the operator's listener on the service's
 * own port and address is a bad setting named in the one settings line, not a port "in use".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../src/config/config.js';

/** The one line a start-up with `vars` stops with, or undefined when it starts. */
function settingsLine(vars: Record<string, string>): string | undefined {
  try {
    parseConfig(vars, '/srv/app');
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

const SAME_PORT = "Invalid setting ADMIN_PORT: is PORT (9100), on an address HOST listens on too: the operator's listener needs a port of its own";

describe('ADMIN_PORT', () => {
  it('is refused when it is PORT on the same host, naming both', () => {
    assert.equal(settingsLine({ PORT: '9100', ADMIN_PORT: '9100' }), SAME_PORT, 'both on 127.0.0.1 by default');
    assert.equal(settingsLine({ HOST: '10.0.0.5', PORT: '9100', ADMIN_HOST: '10.0.0.5', ADMIN_PORT: '9100' }), SAME_PORT, 'both on 10.0.0.5');
  });

  it('is refused when it is PORT and either listener takes every address', () => {
    assert.equal(settingsLine({ HOST: '0.0.0.0', PORT: '9100', ADMIN_PORT: '9100' }), SAME_PORT, 'HOST=0.0.0.0');
    assert.equal(settingsLine({ HOST: '10.0.0.5', PORT: '9100', ADMIN_HOST: '::', ADMIN_PORT: '9100' }), SAME_PORT, 'ADMIN_HOST=::');
  });

  it('is reported with every other bad setting in the one settings line', () => {
    assert.equal(
      settingsLine({ PORT: '9100', ADMIN_PORT: '9100', LOG_MAX_FILES: '0' }),
      "Invalid settings (2): LOG_MAX_FILES: 0 is out of range (1-10000); ADMIN_PORT: is PORT (9100), on an address HOST listens on too: the operator's listener needs a port of its own",
    );
  });

  it('may be PORT on another address, and both may be 0 (each picks a free port)', () => {
    assert.deepEqual(parseConfig({ HOST: '10.0.0.5', PORT: '9100', ADMIN_PORT: '9100' }, '/srv/app').admin, { host: '127.0.0.1', port: 9100 });
    assert.deepEqual(parseConfig({ PORT: '0', ADMIN_PORT: '0' }, '/srv/app').admin, { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseConfig({ PORT: '9100', ADMIN_PORT: '9101' }, '/srv/app').admin, { host: '127.0.0.1', port: 9101 });
  });

  it('leaves ADMIN_HOST unchecked while ADMIN_PORT is unset: nothing listens', () => {
    assert.equal(parseConfig({ ADMIN_HOST: 'not a host' }, '/srv/app').admin, undefined);
  });
});
