import { canCancel, canRetry, EXPORT_POLL_MS, EXPORT_PROGRESS_POLL_MS, exportProgress, exportQuery, exportStatusColor, hasUnfinished, pollInterval, type ExportRecord } from './exports';

const record = (status: number) => ({ id: String(status), status }) as ExportRecord;

describe('export records', () => {
  it('filters by a known status only', () => {
    expect(exportQuery({}, 1, 20)).toEqual({ page: 1, size: 20 });
    expect(exportQuery({ status: 3 }, 1, 20)).toEqual({ page: 1, size: 20, status: 3 });
    expect(exportQuery({ status: 6 }, 1, 20)).toEqual({ page: 1, size: 20, status: 6 });
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

  it('polls fast while one runs (live progress), slowly while one waits, not when all are done', () => {
    expect(pollInterval([record(3), record(2)])).toBe(EXPORT_PROGRESS_POLL_MS);
    expect(pollInterval([record(1)])).toBe(EXPORT_POLL_MS);
    expect(pollInterval([record(3), record(6)])).toBe(false);
  });

  it('shows rows done of rows to write, with a percentage once the total is known', () => {
    expect(exportProgress({ ...record(2), rowsDone: 250, rowsTotal: 1000 })).toEqual({ done: 250, total: 1000, percent: 25 });
    expect(exportProgress({ ...record(2), rowsDone: 0, rowsTotal: 0 })).toEqual({ done: 0, total: 0, percent: undefined });
  });

  it('cancels what is queued or running and retries what failed, expired or was cancelled', () => {
    expect([1, 2, 3, 4, 5, 6].filter((s) => canCancel(record(s)))).toEqual([1, 2]);
    expect([1, 2, 3, 4, 5, 6].filter((s) => canRetry(record(s)))).toEqual([4, 5, 6]);
  });
});
