import { mainScriptHash, nextCheckDelay, POLL } from './update-check';

describe('update check schedule (console spec §4)', () => {
  const on = (day: number) => new Date(2024, 0, 7 + day, 10); // 2024-01-07 is a Sunday

  it('polls every 30 min Tuesday to Thursday and every 3 h on other days', () => {
    expect(nextCheckDelay('same', on(2))).toBe(30 * 60_000);
    expect(nextCheckDelay('same', on(3))).toBe(30 * 60_000);
    expect(nextCheckDelay('same', on(4))).toBe(30 * 60_000);
    expect(nextCheckDelay('same', on(1))).toBe(3 * 3_600_000);
    expect(nextCheckDelay('same', on(5))).toBe(3 * 3_600_000);
    expect(nextCheckDelay('same', on(0))).toBe(3 * 3_600_000);
  });

  it('asks again in 10 min when deferred or the hash is missing, in 1 h after a failure', () => {
    expect(nextCheckDelay('deferred', on(1))).toBe(POLL.deferredOrMissing);
    expect(nextCheckDelay('missing', on(3))).toBe(10 * 60_000);
    expect(nextCheckDelay('failed', on(3))).toBe(60 * 60_000);
  });

  it('reads the main script hash from the page', () => {
    expect(mainScriptHash('<script type="module" crossorigin src="/assets/index-DpouYLa7.js"></script>')).toBe('DpouYLa7');
    expect(mainScriptHash('<html></html>')).toBeUndefined();
  });
});
