import { Button, Descriptions, Space, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ModuleCard } from '@/components/module-card';
import { useAccess } from '@/lib/auth';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import '../messages';
import { useBillDetail, type BillLine, type BillPayment } from '../api/finance';
import { BILL_COLORS, PAYMENT_COLORS, money, pathOf, sourcePath, withId } from '../components/labels';
import { BackButton, CodeTag, DetailState, P } from '../components/parts';
import { payable } from './bill-list';

/**
 * 账单详情 (billDetail, bill:biz:pageInfo): a bill with its lines, each led
 * to the record it was raised from (usage record, charging statement, repair
 * bill, order), and the payments applied to it.
 */
export default function BillDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const detail = useBillDetail(params.get('id') ?? '');
  const { principal } = useAccess();
  const canPay = !!principal?.flags.isB2B && principal.permissions.has('oss:bill:pagepay');
  const canRefund = !!principal?.permissions.has('as:refund');
  return (
    <DetailState
      query={detail}
      render={({ bill, payments }) => {
        const source = sourcePath(bill);
        return (
          <Space direction="vertical" style={{ width: '100%' }} data-testid="bill-detail">
            <ModuleCard
              title={`${t(`${P}bill.bill`)} · ${bill.billNo}`}
              extra={
                <Space>
                  {canPay && payable(bill) && (
                    <Button type="primary" data-testid="bill-pay" onClick={() => navigate(withId('billPay', bill.id))}>
                      {t(`${P}pay.pay`)}
                    </Button>
                  )}
                  {canRefund && bill.paidFen > bill.refundedFen && (
                    <Button onClick={() => navigate(`${pathOf('billRefund')}?billNos=${encodeURIComponent(bill.billNo)}`)}>{t(`${P}refund.apply`)}</Button>
                  )}
                  <BackButton to={pathOf('billList')} />
                </Space>
              }
            >
              <Descriptions column={3} size="small" bordered>
                <Descriptions.Item label={t(`${P}bill.title`)}>{bill.title}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.kind`)}>{codeLabel(t, `${P}billKinds`, bill.kind)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}common.status`)}>
                  <CodeTag code={bill.status} labels="billStatuses" colors={BILL_COLORS} />
                </Descriptions.Item>
                <Descriptions.Item label={t(`${P}common.org`)}>{bill.orgName}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.period`)}>{bill.period}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.source`)}>
                  {source ? (
                    <Link to={source} data-testid="bill-source">
                      {t(`${P}bill.viewSource`)}
                    </Link>
                  ) : (
                    '-'
                  )}
                </Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.amount`)}>{money(bill.amountFen)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.discount`)}>{money(bill.discountFen)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.lateFee`)}>{money(bill.lateFeeFen)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.payable`)}>{money(bill.payableFen)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.paid`)}>{money(bill.paidFen)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.outstanding`)}>
                  <span data-testid="bill-outstanding">{money(bill.outstandingFen)}</span>
                </Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.refunded`)}>{money(bill.refundedFen)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.invoiced`)}>{money(bill.invoicedFen)}</Descriptions.Item>
                <Descriptions.Item label={t(`${P}bill.dueTime`)}>{formatTime(bill.dueTime, '{y}-{m}-{d}')}</Descriptions.Item>
              </Descriptions>
            </ModuleCard>
            <ModuleCard title={t(`${P}bill.lines`)}>
              <Table<BillLine & { key: number }>
                size="small"
                rowKey="key"
                pagination={false}
                dataSource={bill.lines.map((l, key) => ({ ...l, key }))}
                data-testid="bill-lines"
                columns={[
                  { title: t(`${P}bill.description`), dataIndex: 'description' },
                  { title: t(`${P}common.plateNumber`), dataIndex: 'plateNumber' },
                  {
                    title: t(`${P}bill.servicePeriod`),
                    key: 'period',
                    render: (_, l) => (l.periodStart ? `${formatTime(l.periodStart, '{y}-{m}-{d}')} ~ ${formatTime(l.periodEnd, '{y}-{m}-{d}')}` : '-'),
                  },
                  { title: t(`${P}bill.quantity`), dataIndex: 'quantity', align: 'right' },
                  { title: t(`${P}bill.unitPrice`), key: 'unit', align: 'right', render: (_, l) => money(l.unitPriceFen) },
                  { title: t(`${P}bill.amount`), key: 'amount', align: 'right', render: (_, l) => money(l.amountFen) },
                  { title: t(`${P}bill.taxRate`), key: 'tax', align: 'right', render: (_, l) => `${l.taxRateBp / 100}%` },
                  {
                    title: t(`${P}bill.source`),
                    key: 'source',
                    render: () => (source ? <Link to={source}>{t(`${P}bill.viewSource`)}</Link> : '-'),
                  },
                ]}
              />
            </ModuleCard>
            <ModuleCard title={t(`${P}pay.payments`)}>
              <Table<BillPayment>
                size="small"
                rowKey="id"
                pagination={false}
                dataSource={payments}
                columns={[
                  { title: t(`${P}pay.paymentNo`), dataIndex: 'paymentNo' },
                  { title: t(`${P}pay.method`), key: 'method', render: (_, p) => codeLabel(t, `${P}paymentMethods`, p.method) },
                  { title: t(`${P}common.status`), key: 'status', render: (_, p) => <CodeTag code={p.status} labels="paymentStatuses" colors={PAYMENT_COLORS} /> },
                  { title: t(`${P}pay.amount`), key: 'amount', align: 'right', render: (_, p) => money(p.amountFen) },
                  { title: t(`${P}pay.paidTime`), key: 'paid', render: (_, p) => formatTime(p.paidTime) },
                ]}
              />
            </ModuleCard>
          </Space>
        );
      }}
    />
  );
}
