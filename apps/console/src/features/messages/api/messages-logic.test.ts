import { approvalQuery, approvalStatusColor, decisionError, detailEntries } from './approvals';
import { noticeQuery } from './notices';

describe('approval decisions', () => {
  it('needs a reason to reject but not to approve', () => {
    expect(decisionError(false, '')).toBe('approval.reasonRequired');
    expect(decisionError(false, '   ')).toBe('approval.reasonRequired');
    expect(decisionError(false, '车辆已报废')).toBeUndefined();
    expect(decisionError(true, '')).toBeUndefined();
  });

  it('refuses comments over 200 characters either way', () => {
    expect(decisionError(true, 'x'.repeat(200))).toBeUndefined();
    expect(decisionError(true, 'x'.repeat(201))).toBe('approval.commentTooLong');
    expect(decisionError(false, 'x'.repeat(201))).toBe('approval.commentTooLong');
  });
});

describe('approval list filters', () => {
  it('sends known statuses and kinds only', () => {
    expect(approvalQuery({}, 1, 20)).toEqual({ page: 1, size: 20 });
    expect(approvalQuery({ status: 1, kind: 3 }, 2, 50)).toEqual({ page: 2, size: 50, status: 1, kind: 3 });
    expect(approvalQuery({ status: 9, kind: '' }, 1, 20)).toEqual({ page: 1, size: 20 });
  });

  it('colours pending, approved, rejected and withdrawn apart', () => {
    expect(new Set([1, 2, 3, 4].map(approvalStatusColor)).size).toBe(4);
    expect(approvalStatusColor(42)).toBe('default');
  });
});

describe('approval business details', () => {
  it('reads fen as yuan, drops blanks and keeps unknown fields', () => {
    expect(detailEntries({ amountFen: 120000, reason: '退租', vin: '', extra: { a: 1 } })).toEqual([
      { key: 'amountFen', value: '¥1,200.00' },
      { key: 'reason', value: '退租' },
      { key: 'extra', value: '{"a":1}' },
    ]);
  });

  it('gives nothing for a missing or non-object detail', () => {
    expect(detailEntries(null)).toEqual([]);
    expect(detailEntries('x')).toEqual([]);
    expect(detailEntries([1])).toEqual([]);
  });
});

describe('notice list filters', () => {
  it('maps read state and category, leaving blanks out', () => {
    expect(noticeQuery({}, 1, 20)).toEqual({ page: 1, size: 20 });
    expect(noticeQuery({ read: 'unread', category: 'export' }, 1, 20)).toEqual({ page: 1, size: 20, read: false, category: 'export' });
    expect(noticeQuery({ read: 'read', category: 'bogus' }, 3, 10)).toEqual({ page: 3, size: 10, read: true });
  });
});
