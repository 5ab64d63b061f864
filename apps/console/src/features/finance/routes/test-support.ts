/** Answers and fixtures the finance page tests share. */
import { vi } from 'vitest';

export const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
export const failed = (code: number, msg: string, status: number) => Promise.resolve(new Response(JSON.stringify({ code, msg, data: null }), { status }));

/** The signed-in user: every finance permission, B2B or not. */
export const me = (b2b: boolean) => ({
  id: 'u1',
  name: '演示管理员',
  userName: 'demo',
  roles: ['admin'],
  permissions: ['bill:biz:pageInfo', 'oss:bill:pagepay', 'as:refund', 'as:invoice', 'as:invoice:company', 'as:coupon:pageInfo'].map((permissionValue) => ({ permissionValue })),
  flags: { isB2B: b2b },
});

const audit = { createdBy: '', createTime: '', updatedBy: '', updateTime: '' };

export const bill = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  billNo: `ZD2026110000${id}`,
  orgId: 'o1',
  orgName: '华南大区',
  channel: 'B2B',
  kind: 'RENT',
  status: 'UNPAID',
  title: '2026年11月车辆租金',
  period: '2026-11',
  orderId: '',
  sourceService: 'vehicle',
  sourceId: 'ur1',
  lines: [],
  amountFen: 350_000,
  discountFen: 0,
  lateFeeFen: 0,
  payableFen: 350_000,
  paidFen: 0,
  outstandingFen: 350_000,
  refundedFen: 0,
  invoicedFen: 0,
  invoiceableFen: 0,
  invoiceState: 'NOT_INVOICED',
  issueTime: '2026-11-01T00:00:00Z',
  dueTime: '2026-11-15T00:00:00Z',
  overdue: false,
  overdueDays: 0,
  paidTime: '',
  confirmedBy: '',
  confirmTime: '',
  monthlyBillId: '',
  attachments: [],
  remark: '',
  audit,
  ...over,
});

/** Calls made with `method` to a URL ending in `suffix`. */
export const calls = (fetchMock: ReturnType<typeof vi.fn>, method: string, suffix: string) =>
  fetchMock.mock.calls.filter(([url, init]) => String(url).split('?')[0].endsWith(suffix) && ((init as RequestInit | undefined)?.method ?? 'GET') === method);

export const bodyOf = (call: unknown[]) => JSON.parse(String((call[1] as RequestInit).body)) as Record<string, unknown>;
export const keyOf = (call: unknown[]) => ((call[1] as RequestInit).headers as Record<string, string>)['Idempotency-Key'];
