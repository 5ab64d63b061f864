import { Alert, Button, Descriptions, Radio, Result, Select, Space, Spin } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ModuleCard } from '@/components/module-card';
import { newIdempotencyKey } from '@/lib/idempotency';
import { useClickDebounce } from '@/lib/use-click-debounce';
import '../messages';
import { FINANCE_KEY, PAYMENTS_KEY, useBalances, useBillDetail, usePayBills, usePayment, useUsableCoupons, type Bill, type Coupon } from '../api/finance';
import { money, pathOf, withId } from '../components/labels';
import { BackButton, DetailState, P } from '../components/parts';

/** How often a pending payment is asked again. */
export const PAY_POLL_MS = 3_000;

/** The methods this page offers: the prepaid balance, or the bank's page (bank transfer). */
type Method = 'PREPAID_BALANCE' | 'ONLINE_BANKING';

/** What a coupon takes off `totalFen` (0 when it does not apply), as the service computes it. */
export function couponDeduction(coupon: Coupon | undefined, totalFen: number): number {
  if (!coupon || totalFen < coupon.minSpendFen) return 0;
  const off = coupon.kind === 'PERCENT_OFF' ? Math.floor((totalFen * coupon.percentOffBp) / 10_000) : coupon.faceValueFen;
  const capped = coupon.kind === 'PERCENT_OFF' && coupon.maxDiscountFen > 0 ? Math.min(off, coupon.maxDiscountFen) : off;
  return Math.max(0, Math.min(capped, totalFen));
}

/**
 * 账单支付 (billPay, oss:bill:pagepay, B2B): pays a bill's outstanding from the
 * prepaid balance (settled at once) or by bank transfer: the bank's page
 * opens and the payment shows pending, asked again every few seconds, until
 * the bank's callback settles it. One Idempotency-Key per attempt: a double
 * click or a retry pays once.
 */
export default function BillPayPage() {
  const [params] = useSearchParams();
  const detail = useBillDetail(params.get('id') ?? '');
  return <DetailState query={detail} render={({ bill }) => <PayForm bill={bill} />} />;
}

function PayForm({ bill }: { bill: Bill }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [method, setMethod] = useState<Method>('PREPAID_BALANCE');
  const [couponId, setCouponId] = useState<string>();
  const [key, setKey] = useState(newIdempotencyKey);
  const [paymentId, setPaymentId] = useState('');
  const balances = useBalances();
  const coupons = useUsableCoupons([bill.id]);
  const pay = usePayBills();
  const client = useQueryClient();
  const payment = usePayment(paymentId, PAY_POLL_MS);
  const coupon = coupons.data?.list.find((c) => c.id === couponId);
  const deduction = couponDeduction(coupon, bill.outstandingFen);
  const total = bill.outstandingFen - deduction;
  const balance = balances.data?.find((b) => b.account === 'PREPAID_BALANCE')?.balanceFen ?? 0;
  const short = method === 'PREPAID_BALANCE' && balance < total;

  const submit = async () => {
    const answer = await pay.mutateAsync({
      idempotencyKey: key,
      body: {
        billIds: [bill.id],
        amountFen: 0,
        expectedTotalFen: total,
        method,
        couponId: couponId ?? '',
        voucher: null,
        payerName: '',
        payerBankName: '',
        payerAccount: '',
        returnUrl: `${window.location.origin}${withId('billDetail', bill.id)}`,
      },
    });
    setKey(newIdempotencyKey());
    // The answer is the payment as it stands: a settled one shows at once.
    client.setQueryData([...PAYMENTS_KEY, 'detail', answer.id], answer);
    setPaymentId(answer.id);
    if (answer.status === 'PENDING' && answer.payUrl) window.open(answer.payUrl, '_blank', 'noopener');
  };

  // A double click lands before the button shows it is busy: it pays once.
  const onPay = useClickDebounce(() => void submit().catch(() => undefined));
  const status = payment.data?.status;
  const settled = !!paymentId && status !== undefined && status !== null && status !== 'PENDING';
  // A bank payment settles after the pay call: the bill, its payments and the balance are read again.
  useEffect(() => {
    if (settled) void client.invalidateQueries({ queryKey: FINANCE_KEY });
  }, [settled, client]);
  if (settled) {
    const ok = status === 'SUCCEEDED';
    return (
      <Result
        status={ok ? 'success' : 'error'}
        title={t(`${P}pay.result.${status}`)}
        subTitle={ok ? money(payment.data?.amountFen) : payment.data?.failureReason}
        data-testid="pay-result"
        extra={<Button onClick={() => navigate(withId('billDetail', bill.id))}>{t(`${P}pay.backToBill`)}</Button>}
      />
    );
  }
  if (paymentId) {
    return (
      <Result
        icon={<Spin />}
        title={t(`${P}pay.pending`)}
        subTitle={t(`${P}pay.pendingHint`)}
        data-testid="pay-pending"
        extra={
          payment.data?.payUrl && (
            <Button type="primary" href={payment.data.payUrl} target="_blank" rel="noopener">
              {t(`${P}pay.openBank`)}
            </Button>
          )
        }
      />
    );
  }
  return (
    <ModuleCard title={`${t(`${P}pay.pay`)} · ${bill.billNo}`} extra={<BackButton to={pathOf('billList')} />}>
      <Space direction="vertical" style={{ width: '100%' }} size="large" data-testid="bill-pay-form">
        <Descriptions column={2} size="small" bordered>
          <Descriptions.Item label={t(`${P}bill.title`)}>{bill.title}</Descriptions.Item>
          <Descriptions.Item label={t(`${P}bill.outstanding`)}>{money(bill.outstandingFen)}</Descriptions.Item>
          <Descriptions.Item label={t(`${P}pay.coupon`)}>
            <Select
              allowClear
              style={{ width: 280 }}
              value={couponId}
              onChange={setCouponId}
              placeholder={t(`${P}pay.noCoupon`)}
              data-testid="pay-coupon"
              options={(coupons.data?.list ?? []).map((c) => ({ value: c.id, label: `${c.name}（-${money(couponDeduction(c, bill.outstandingFen))}）` }))}
            />
          </Descriptions.Item>
          <Descriptions.Item label={t(`${P}pay.total`)}>
            <strong data-testid="pay-total">{money(total)}</strong>
          </Descriptions.Item>
        </Descriptions>
        <Radio.Group value={method} onChange={(e) => setMethod(e.target.value as Method)} data-testid="pay-method">
          <Radio value="PREPAID_BALANCE" data-testid="pay-balance">
            {t(`${P}paymentMethods.PREPAID_BALANCE`)}（{t(`${P}pay.balance`, { balance: money(balance) })}）
          </Radio>
          <Radio value="ONLINE_BANKING" data-testid="pay-bank">
            {t(`${P}pay.bankTransfer`)}
          </Radio>
        </Radio.Group>
        {short && <Alert type="warning" showIcon message={t(`${P}pay.short`)} data-testid="pay-short" />}
        <Button type="primary" disabled={short || total <= 0} loading={pay.isPending} onClick={onPay} data-testid="pay-submit">
          {t(`${P}pay.confirm`, { total: money(total) })}
        </Button>
      </Space>
    </ModuleCard>
  );
}
