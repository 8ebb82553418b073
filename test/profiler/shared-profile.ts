/**
 * A finished profile as a worker sends it, for tests of the profiles shared between workers.
 */
import type { Profile } from '../../src/profiler/profile.js';

export function finishedProfile(token: string, overrides: Partial<Profile> = {}): Profile {
  return {
    token,
    parentToken: undefined,
    children: [],
    time: 1_700_000_000_000,
    requestId: 'b5f0c2a4-0000-4000-8000-000000000001',
    method: 'GET',
    originalMethod: 'GET',
    rawPath: '/nowhere',
    target: '/nowhere?q=1',
    clientIp: '127.0.0.1',
    requestHeaders: [['host', 'localhost']],
    responseHeaders: [['content-type', 'text/html; charset=UTF-8']],
    attributes: { _controller: 'rest.problem.fallback::index', 'rest.service.zone': false },
    status: 404,
    durationMs: 1.5,
    logs: [{ at: 1_700_000_000_001, channel: 'request', level: 'ERROR', message: 'No route found for "GET /nowhere"' }],
    problem: { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No route found', instance: '/nowhere' },
    stack: undefined,
    ...overrides,
  };
}

/** What arrives on the other side of a cluster channel (JSON: undefined members are dropped). */
export function overTheChannel<T>(message: T): unknown {
  return JSON.parse(JSON.stringify(message)) as unknown;
}
