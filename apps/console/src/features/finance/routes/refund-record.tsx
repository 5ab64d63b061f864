import { Button, Input, Space } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel, codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import { REFUNDS_KEY, exportRefunds, listRefunds, refundQuery, useCancelRefund, type Refund, type RefundQuery } from '../api/finance';
import { REFUND_COLORS, REFUND_REASONS, REFUND_STATUSES, money, withId } from '../components/labels';
import { CodeTag, P } from '../components/parts';

/** Refunds still open: the enterprise confirms (no operator review is built) or withdraws them. */
const withdrawable = (r: Refund) => r.status === 'PENDING_REVIEW' || r.status === 'PENDING_CONFIRMATION';

/**
 * 退款记录 (refundRecord, as:refund): the refunds newest first; one the
 * operator proposed opens its confirmation (the B2B one for a B2B refund),
 * one not yet paying out can be withdrawn.
 */
export default function RefundRecordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const cancel = useCancelRefund();
  const [withdrawing, setWithdrawing] = useState<Refund>();
  const [reason, setReason] = useState('');
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'refundNo', label: t(`${P}refund.refundNo`), type: 'input', width: 200 },
      { prop: 'reasons', label: t(`${P}refund.reason`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}refundReasons`, REFUND_REASONS) },
      { prop: 'statuses', label: t(`${P}common.status`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}refundStatuses`, REFUND_STATUSES) },
      { prop: 'applyTime', label: t(`${P}refund.applyTime`), type: 'daterange', keys: { start: 'applyTimeStart', end: 'applyTimeEnd' } },
    ],
    [t],
  );
  const list = useListPage<Refund, RefundQuery>({ fields, queryKey: REFUNDS_KEY, toQuery: refundQuery, fetch: listRefunds });
  const columns: ListColumn<Refund>[] = [
    { prop: 'refundNo', label: t(`${P}refund.refundNo`), width: 190, fixed: 'left' },
    { prop: 'billNo', label: t(`${P}bill.billNo`), width: 180 },
    { prop: 'reason', label: t(`${P}refund.reason`), width: 120, formatter: (row) => codeLabel(t, `${P}refundReasons`, row.reason) },
    { prop: 'requestedFen', label: t(`${P}refund.requested`), width: 130, align: 'right', formatter: (row) => money(row.requestedFen) },
    { prop: 'approvedFen', label: t(`${P}refund.approved`), width: 130, align: 'right', formatter: (row) => money(row.approvedFen) },
    { prop: 'refundedFen', label: t(`${P}refund.refunded`), width: 130, align: 'right', formatter: (row) => money(row.refundedFen) },
    { prop: 'method', label: t(`${P}refund.method`), width: 120, formatter: (row) => codeLabel(t, `${P}refundMethods`, row.method) },
    { prop: 'status', label: t(`${P}common.status`), width: 110, render: (row) => <CodeTag code={row.status} labels="refundStatuses" colors={REFUND_COLORS} /> },
    { prop: 'applyTime', label: t(`${P}refund.applyTime`), width: 170, formatter: (row) => formatTime(row.applyTime) },
    { prop: 'completeTime', label: t(`${P}refund.completeTime`), width: 170, formatter: (row) => formatTime(row.completeTime) },
    {
      key: 'actions',
      label: t(`${P}common.actions`),
      width: 150,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          {withdrawable(row) && (
            <Button type="link" size="small" data-testid="refund-sure" onClick={() => navigate(withId(row.channel === 'B2B' ? 'billRefundSureB2B' : 'billRefundSure', row.id))}>
              {t(`${P}refund.toConfirm`)}
            </Button>
          )}
          {withdrawable(row) && (
            <Button type="link" size="small" danger onClick={() => setWithdrawing(row)}>
              {t(`${P}refund.withdraw`)}
            </Button>
          )}
        </Space>
      ),
    },
  ];
  return (
    <ListPage<Refund>
      testId="finance-refund-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options) => exportRefunds(list.query, options)} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1700, ...list.tableProps }}
    >
      <AppDialog
        open={!!withdrawing}
        title={t(`${P}refund.withdraw`)}
        onCancel={() => setWithdrawing(undefined)}
        onConfirm={async () => {
          if (!withdrawing) return;
          await cancel.mutateAsync({ id: withdrawing.id, reason });
          toastSuccess(t(`${P}refund.withdrawn`));
          setWithdrawing(undefined);
        }}
      >
        <Input.TextArea value={reason} onChange={(e) => setReason(e.target.value)} maxLength={200} placeholder={t(`${P}common.reason`)} />
      </AppDialog>
    </ListPage>
  );
}
