import { enumValues } from './enum-values';

type Status = 1 | 2 | 3;

describe('enum values checked against a generated enum', () => {
  it('gives the values back in order', () => {
    expect(enumValues<Status>()(1, 2, 3)).toEqual([1, 2, 3]);
  });

  it('refuses at compile time a list that misses a value or has a foreign one', () => {
    // @ts-expect-error 3 is missing
    enumValues<Status>()(1, 2);
    // @ts-expect-error 4 is not a Status
    enumValues<Status>()(1, 2, 3, 4);
    expect(true).toBe(true);
  });
});
