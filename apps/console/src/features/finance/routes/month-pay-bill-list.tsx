import { Button, Drawer, Input, Space, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner, LoadErrorResult } from '@/components/load-error';
import { PageLoading } from '@/components/page-loading';
import { codeLabel, codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import {
  MONTHLY_KEY,
  exportMonthlyBills,
  listMonthlyBills,
  monthlyBillFile,
  monthlyQuery,
  useConfirmBills,
  useMonthlyBillDetail,
  type Bill,
  type MonthlyBill,
  type MonthlyBillQuery,
} from '../api/finance';
import { BILL_COLORS, BILL_STATUSES, money } from '../components/labels';
import { CodeTag, P } from '../components/parts';

/**
 * 月结账单 (monthPayBillList, oss:bill:reconciliation, B2B): the months with
 * their bills; a month's bills awaiting reconciliation are confirmed or
 * disputed together against the total seen, and its statement downloaded.
 */
export default function MonthPayBillListPage() {
  const { t } = useTranslation();
  const [openId, setOpenId] = useState('');
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'months', label: t(`${P}bill.period`), type: 'rangeMonth', keys: { start: 'startMonth', end: 'endMonth' }, notVerify: true },
      { prop: 'statuses', label: t(`${P}common.status`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}billStatuses`, BILL_STATUSES) },
    ],
    [t],
  );
  const list = useListPage<MonthlyBill, MonthlyBillQuery>({ fields, queryKey: MONTHLY_KEY, toQuery: monthlyQuery, fetch: listMonthlyBills });
  const columns: ListColumn<MonthlyBill>[] = [
    { prop: 'month', label: t(`${P}bill.period`), width: 110, fixed: 'left' },
    { prop: 'billCount', label: t(`${P}monthly.billCount`), width: 100, align: 'right' },
    { prop: 'payableFen', label: t(`${P}bill.payable`), width: 140, align: 'right', formatter: (row) => money(row.payableFen) },
    { prop: 'paidFen', label: t(`${P}bill.paid`), width: 140, align: 'right', formatter: (row) => money(row.paidFen) },
    { prop: 'outstandingFen', label: t(`${P}bill.outstanding`), width: 140, align: 'right', formatter: (row) => money(row.outstandingFen) },
    { prop: 'status', label: t(`${P}common.status`), width: 110, render: (row) => <CodeTag code={row.status} labels="billStatuses" colors={BILL_COLORS} /> },
    { prop: 'dueTime', label: t(`${P}bill.dueTime`), width: 120, formatter: (row) => formatTime(row.dueTime, '{y}-{m}-{d}') },
    {
      key: 'actions',
      label: t(`${P}common.actions`),
      width: 160,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" data-testid="monthly-view" onClick={() => setOpenId(row.id)}>
            {t(`${P}common.detail`)}
          </Button>
          {row.hasFile && (
            <Button type="link" size="small" onClick={() => void monthlyBillFile(row.id).then((f) => window.open(f.url, '_blank', 'noopener'))}>
              {t(`${P}monthly.download`)}
            </Button>
          )}
        </Space>
      ),
    },
  ];
  return (
    <ListPage<MonthlyBill>
      testId="finance-monthly-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options) => exportMonthlyBills(list.query, options)} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1100, ...list.tableProps }}
    >
      <Drawer open={!!openId} size={900} title={t(`${P}monthly.detail`)} onClose={() => setOpenId('')} destroyOnHidden>
        {openId && <MonthDetail id={openId} />}
      </Drawer>
    </ListPage>
  );
}

/** A month's bills; those awaiting reconciliation are confirmed or disputed together. */
function MonthDetail({ id }: { id: string }) {
  const { t } = useTranslation();
  const detail = useMonthlyBillDetail(id);
  const confirm = useConfirmBills();
  const [dispute, setDispute] = useState(false);
  const [reason, setReason] = useState('');
  if (detail.error) return <LoadErrorResult error={detail.error} onRetry={() => void detail.refetch()} />;
  if (!detail.data) return <PageLoading />;
  const pending = detail.data.bills.filter((b) => b.status === 'PENDING_CONFIRMATION');
  const pendingTotal = pending.reduce((sum, b) => sum + b.payableFen, 0);
  const answer = async (accepted: boolean) => {
    await confirm.mutateAsync({ billIds: pending.map((b) => b.id), accepted, expectedTotalFen: pendingTotal, disputeReason: accepted ? '' : reason });
    toastSuccess(t(accepted ? `${P}monthly.confirmed` : `${P}monthly.disputed`));
    setDispute(false);
  };
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="monthly-detail">
      {pending.length > 0 && (
        <Space>
          <Typography.Text>{t(`${P}monthly.pending`, { count: pending.length, total: money(pendingTotal) })}</Typography.Text>
          <Button type="primary" loading={confirm.isPending} onClick={() => void answer(true).catch(() => undefined)} data-testid="monthly-confirm">
            {t(`${P}monthly.confirm`)}
          </Button>
          <Button danger onClick={() => setDispute(true)}>
            {t(`${P}monthly.dispute`)}
          </Button>
        </Space>
      )}
      <Table<Bill>
        size="small"
        rowKey="id"
        pagination={false}
        dataSource={detail.data.bills}
        columns={[
          { title: t(`${P}bill.billNo`), dataIndex: 'billNo' },
          { title: t(`${P}bill.kind`), key: 'kind', render: (_, b) => codeLabel(t, `${P}billKinds`, b.kind) },
          { title: t(`${P}bill.payable`), key: 'payable', align: 'right', render: (_, b) => money(b.payableFen) },
          { title: t(`${P}bill.outstanding`), key: 'outstanding', align: 'right', render: (_, b) => money(b.outstandingFen) },
          { title: t(`${P}common.status`), key: 'status', render: (_, b) => <CodeTag code={b.status} labels="billStatuses" colors={BILL_COLORS} /> },
        ]}
      />
      <AppDialog
        open={dispute}
        title={t(`${P}monthly.dispute`)}
        onCancel={() => setDispute(false)}
        onConfirm={() => (reason.trim() ? answer(false) : Promise.reject(new Error('reason')))}
      >
        <Input.TextArea value={reason} onChange={(e) => setReason(e.target.value)} maxLength={200} placeholder={t(`${P}monthly.disputeReason`)} />
      </AppDialog>
    </Space>
  );
}
