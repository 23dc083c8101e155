import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RATE_LIMIT_PER_MINUTE, RATE_LIMIT_DOCS_URL, RateLimiter } from './rate-limit.js';

/** 25 s into a clock minute. */
const T0 = 1_700_000_005_000;

function fakeClock(start: number) {
  let now = start;
  return { now: () => now, advance: (ms: number) => { now += ms; } };
}

describe('RateLimiter', () => {
  it('defaults to New Relic’s 1000 per minute', () => {
    const limiter = new RateLimiter(fakeClock(T0));
    assert.equal(limiter.limitPerMinute, DEFAULT_RATE_LIMIT_PER_MINUTE);
    assert.equal(DEFAULT_RATE_LIMIT_PER_MINUTE, 1000);
    for (let i = 0; i < 1000; i++) assert.equal(limiter.take('k').allowed, true);
    assert.equal(limiter.take('k').allowed, false);
  });

  it('counts down, then refuses with the headers of the window’s end', () => {
    const limiter = new RateLimiter(fakeClock(T0), 2);
    assert.deepEqual(limiter.take('k'), { allowed: true, remaining: 1 });
    assert.deepEqual(limiter.take('k'), { allowed: true, remaining: 0 });
    assert.deepEqual(limiter.take('k'), {
      allowed: false,
      headers: {
        'x-ratelimit-limit': '2',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1700000040',
        'x-ratelimit-docs': RATE_LIMIT_DOCS_URL,
        'retry-after': '35',
      },
    });
  });

  it('keeps keys apart', () => {
    const limiter = new RateLimiter(fakeClock(T0), 1);
    assert.equal(limiter.take('a').allowed, true);
    assert.equal(limiter.take('b').allowed, true);
    assert.equal(limiter.take('a').allowed, false);
  });

  it('starts afresh when the minute turns, and forgets idle keys', () => {
    const clock = fakeClock(T0);
    const limiter = new RateLimiter(clock, 1);
    for (let i = 0; i < 500; i++) limiter.take(`key-${i}`);
    assert.equal(limiter.trackedKeys, 500);
    assert.equal(limiter.take('key-0').allowed, false);
    clock.advance(34_999);
    assert.equal(limiter.take('key-0').allowed, false);
    clock.advance(1);
    assert.equal(limiter.take('key-0').allowed, true);
    assert.equal(limiter.trackedKeys, 1);
  });

  it('never asks to wait less than a second', () => {
    const clock = fakeClock(T0 + 34_900);
    const limiter = new RateLimiter(clock, 1);
    limiter.take('k');
    const refused = limiter.take('k');
    assert.equal(refused.allowed, false);
    if (!refused.allowed) assert.equal(refused.headers['retry-after'], '1');
  });

  it('refuses a limit that is not a positive integer', () => {
    assert.throws(() => new RateLimiter(fakeClock(T0), 0), RangeError);
    assert.throws(() => new RateLimiter(fakeClock(T0), 2.5), RangeError);
  });
});
