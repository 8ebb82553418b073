import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_WAITING, ProfileHub } from '../../src/profiler/hub.js';
import { PrimaryLink, type Channel } from '../../src/profiler/primary-link.js';
import type { PrimaryMessage } from '../../src/profiler/protocol.js';
import { finishedProfile, overTheChannel } from './shared-profile.js';

/** Sends `message` to the hub and resolves with its answer (or 'none' after `ms`). */
function ask(hub: ProfileHub, message: unknown, ms = 200): Promise<PrimaryMessage | 'none'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('none'), ms);
    hub.receive(message, (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

const keep = (token: string, overrides = {}) => overTheChannel({ type: 'profiler.keep', profile: finishedProfile(token, overrides) });

describe('ProfileHub', () => {
  it('answers a question for a token kept by any worker', async () => {
    const hub = new ProfileHub(10, 20);
    hub.receive(keep('abc123'), () => assert.fail('a profile to keep is not answered'));
    assert.deepEqual(await ask(hub, { type: 'profiler.find', id: 1, token: 'abc123' }), { type: 'profiler.found', id: 1, profile: finishedProfile('abc123') });
  });

  it('keeps the newest PROFILER_MAX profiles only', async () => {
    const hub = new ProfileHub(2, 20);
    for (const token of ['000001', '000002', '000003']) hub.receive(keep(token), () => {});
    assert.deepEqual(await ask(hub, { type: 'profiler.find', id: 1, token: '000001' }), { type: 'profiler.found', id: 1, profile: null });
    const results = await ask(hub, { type: 'profiler.search', id: 2, criteria: {}, limit: 50 });
    assert.deepEqual(results !== 'none' && results.type === 'profiler.results' && results.profiles.map((p) => p.token), ['000003', '000002']);
  });

  it('waits for a token that arrives shortly after the question (a link followed at once)', async () => {
    const hub = new ProfileHub(10, 1_000);
    const answer = ask(hub, { type: 'profiler.find', id: 5, token: 'abc123' }, 2_000);
    assert.equal(hub.waiting, 1);
    setTimeout(() => hub.receive(keep('abc123'), () => {}), 10);
    assert.deepEqual(await answer, { type: 'profiler.found', id: 5, profile: finishedProfile('abc123') });
    assert.equal(hub.waiting, 0);
  });

  it('answers every question waiting for the same token', async () => {
    const hub = new ProfileHub(10, 1_000);
    const answers = Promise.all([1, 2].map((id) => ask(hub, { type: 'profiler.find', id, token: 'abc123' }, 2_000)));
    hub.receive(keep('abc123'), () => {});
    assert.deepEqual((await answers).map((a) => a !== 'none' && a.type === 'profiler.found' && a.profile?.token), ['abc123', 'abc123']);
  });

  it('answers not found once the wait for an unknown token is over', async () => {
    const hub = new ProfileHub(10, 20);
    const started = Date.now();
    assert.deepEqual(await ask(hub, { type: 'profiler.find', id: 9, token: 'abc123' }), { type: 'profiler.found', id: 9, profile: null });
    assert.ok(Date.now() - started >= 15, 'answered before the wait was over');
    assert.equal(hub.waiting, 0);
    hub.receive(keep('abc123'), () => assert.fail('answered twice'));
  });

  it('answers not found at once when MAX_WAITING questions already wait', async () => {
    const hub = new ProfileHub(10, 200);
    for (let id = 0; id < MAX_WAITING; id++) hub.receive({ type: 'profiler.find', id, token: 'abc123' }, () => {});
    assert.deepEqual(await ask(hub, { type: 'profiler.find', id: MAX_WAITING, token: 'def456' }, 50), { type: 'profiler.found', id: MAX_WAITING, profile: null });
  });

  it('searches newest first by the criteria, at most the limit', async () => {
    const hub = new ProfileHub(10, 20);
    hub.receive(keep('000001', { method: 'POST' }), () => {});
    hub.receive(keep('000002'), () => {});
    hub.receive(keep('000003'), () => {});
    const answer = await ask(hub, { type: 'profiler.search', id: 3, criteria: { method: 'GET' }, limit: 1 });
    assert.deepEqual(answer !== 'none' && answer.type === 'profiler.results' && answer.profiles.map((p) => p.token), ['000003']);
  });

  it('ignores odd messages without answering or throwing', async () => {
    const hub = new ProfileHub(10, 20);
    for (const odd of [null, undefined, 'x', 42, [], {}, { type: 'listening', url: 'x' }, { type: 'profiler.keep', profile: { token: 'abc123' } }, { type: 'profiler.find', id: 'a', token: 'abc123' }]) {
      assert.equal(await ask(hub, odd, 30), 'none', JSON.stringify(odd));
    }
    assert.equal(hub.waiting, 0);
  });
});

/** A link whose messages reach `hub` as they would over the cluster channel. */
function linkTo(hub: ProfileHub | undefined, timeoutMs = 500): PrimaryLink {
  let deliver: (message: unknown) => void = () => {};
  const channel: Channel = {
    send: (message) => setImmediate(() => hub?.receive(overTheChannel(message), (answer) => setImmediate(() => deliver(overTheChannel(answer))))),
    onMessage: (listener) => (deliver = listener),
  };
  return new PrimaryLink(channel, timeoutMs);
}

describe('PrimaryLink', () => {
  it('finds a profile another worker kept', async () => {
    const hub = new ProfileHub(10, 20);
    linkTo(hub).keep(finishedProfile('abc123'));
    assert.deepEqual(await linkTo(hub).find('abc123'), finishedProfile('abc123'));
  });

  it('finds nothing for a token no worker kept', async () => {
    assert.equal(await linkTo(new ProfileHub(10, 20)).find('abc123'), undefined);
  });

  it('searches the profiles of every worker', async () => {
    const hub = new ProfileHub(10, 20);
    linkTo(hub).keep(finishedProfile('000001'));
    linkTo(hub).keep(finishedProfile('000002'));
    const found = await linkTo(hub).search({}, 50);
    assert.deepEqual(found?.map((p) => p.token), ['000002', '000001']);
  });

  it('gives up after its timeout when the primary does not answer', async () => {
    const link = linkTo(undefined, 20);
    assert.equal(await link.find('abc123'), undefined);
    assert.equal(await link.search({}, 50), undefined);
  });

  it('ignores answers to questions it did not ask and answers that are not valid', async () => {
    let deliver: (message: unknown) => void = () => {};
    const link = new PrimaryLink({ send: () => {}, onMessage: (listener) => (deliver = listener) }, 50);
    const found = link.find('abc123');
    deliver({ type: 'profiler.found', id: 99, profile: overTheChannel(finishedProfile('abc123')) });
    deliver({ type: 'profiler.found', id: 0, profile: { token: 'abc123' } });
    deliver('noise');
    assert.equal(await found, undefined);
  });
});
