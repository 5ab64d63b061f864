import { describe, expect, it } from 'vitest';
import { CARD_NO_PATTERN, cardBody, NEW_CARD } from './card-form';

describe('cardBody', () => {
  it('sends only the holder of the chosen kind and yuan as fen', () => {
    const body = cardBody({ ...NEW_CARD, orgId: 'o', accountId: 'a', cardNo: ' C0001 ', vehicleId: 'v', driverId: 'd', budgetPeriod: 'MONTHLY', budgetLimit: 1200.5, perSessionLimit: 300 });
    expect(body).toMatchObject({ cardNo: 'C0001', holderKind: 'VEHICLE', vehicleId: 'v', driverId: '', budgetLimitFen: 120_050, perSessionLimitFen: 30_000 });
    expect(cardBody({ ...NEW_CARD, holderKind: 'DRIVER', vehicleId: 'v', driverId: 'd' })).toMatchObject({ vehicleId: '', driverId: 'd', allowedStationIds: [] });
    expect(cardBody({ ...NEW_CARD, allowedStationIds: ['s1', 's2'] }).allowedStationIds).toEqual(['s1', 's2']);
  });

  it('drops the budget cap without a period and the number of a virtual card', () => {
    const body = cardBody({ ...NEW_CARD, kind: 'VIRTUAL', cardNo: 'C0001', budgetPeriod: 'NONE', budgetLimit: 500 });
    expect(body.budgetLimitFen).toBe(0);
    expect(body.cardNo).toBe('');
  });
});

describe('CARD_NO_PATTERN', () => {
  it('takes 4 to 32 letters or digits', () => {
    expect(CARD_NO_PATTERN.test('EC2026')).toBe(true);
    expect(CARD_NO_PATTERN.test('abc')).toBe(false);
    expect(CARD_NO_PATTERN.test('EC-2026')).toBe(false);
    expect(CARD_NO_PATTERN.test('A'.repeat(33))).toBe(false);
  });
});
