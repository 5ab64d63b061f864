import { exportQuery, exportStatusColor, hasUnfinished, type ExportRecord } from './exports';

const record = (status: number) => ({ id: String(status), status }) as ExportRecord;

describe('export records', () => {
  it('filters by a known status only', () => {
    expect(exportQuery({}, 1, 20)).toEqual({ page: 1, size: 20 });
    expect(exportQuery({ status: 3 }, 1, 20)).toEqual({ page: 1, size: 20, status: 3 });
    expect(exportQuery({ status: 7 }, 1, 20)).toEqual({ page: 1, size: 20 });
  });

  it('polls while something is queued or running, not otherwise', () => {
    expect(hasUnfinished([record(3), record(1)])).toBe(true);
    expect(hasUnfinished([record(2)])).toBe(true);
    expect(hasUnfinished([record(3), record(4), record(5)])).toBe(false);
    expect(hasUnfinished(undefined)).toBe(false);
  });

  it('tags success green and failure red', () => {
    expect(exportStatusColor(3)).toBe('success');
    expect(exportStatusColor(4)).toBe('error');
  });
});
