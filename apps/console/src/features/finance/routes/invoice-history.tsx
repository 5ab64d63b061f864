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
import { APPLICATIONS_KEY, applicationQuery, exportApplications, listApplications, useCancelApplication, type ApplicationQuery, type InvoiceApplication } from '../api/finance';
import { APPLICATION_COLORS, APPLICATION_STATUSES, INVOICE_TYPES, money, withId } from '../components/labels';
import { CodeTag, P } from '../components/parts';

/** The detail route of an application's channel. */
export const applicationPath = (a: Pick<InvoiceApplication, 'id' | 'channel'>) =>
  withId(a.channel === 'B2B' ? 'invoiceHistoryB2BDetail' : 'invoiceHistoryDetail', a.id);

/**
 * 开票历史 (invoiceHistory, as:invoice): the invoice applications, newest
 * first, each opening its detail (the B2B one for a B2B application); one
 * still under review can be withdrawn.
 */
export default function InvoiceHistoryPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const cancel = useCancelApplication();
  const [withdrawing, setWithdrawing] = useState<InvoiceApplication>();
  const [reason, setReason] = useState('');
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'applicationNo', label: t(`${P}invoice.applicationNo`), type: 'input', width: 200 },
      { prop: 'invoiceNumber', label: t(`${P}invoice.invoiceNumber`), type: 'input', width: 220 },
      { prop: 'invoiceTypes', label: t(`${P}invoice.type`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}invoiceTypes`, INVOICE_TYPES) },
      { prop: 'statuses', label: t(`${P}common.status`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}applicationStatuses`, APPLICATION_STATUSES) },
      { prop: 'applyTime', label: t(`${P}invoice.applyTime`), type: 'daterange', keys: { start: 'applyTimeStart', end: 'applyTimeEnd' } },
    ],
    [t],
  );
  const list = useListPage<InvoiceApplication, ApplicationQuery>({ fields, queryKey: APPLICATIONS_KEY, toQuery: applicationQuery, fetch: listApplications });
  const columns: ListColumn<InvoiceApplication>[] = [
    { prop: 'applicationNo', label: t(`${P}invoice.applicationNo`), width: 190, fixed: 'left' },
    { prop: 'invoiceType', label: t(`${P}invoice.type`), width: 140, formatter: (row) => codeLabel(t, `${P}invoiceTypes`, row.invoiceType) },
    { prop: 'title', label: t(`${P}invoice.title`), width: 220, showOverflowTooltip: true, formatter: (row) => row.title?.name ?? '' },
    { prop: 'amountFen', label: t(`${P}invoice.amount`), width: 130, align: 'right', formatter: (row) => money(row.amountFen) },
    { prop: 'status', label: t(`${P}common.status`), width: 110, render: (row) => <CodeTag code={row.status} labels="applicationStatuses" colors={APPLICATION_COLORS} /> },
    { prop: 'applicantName', label: t(`${P}invoice.applicant`), width: 120 },
    { prop: 'applyTime', label: t(`${P}invoice.applyTime`), width: 170, formatter: (row) => formatTime(row.applyTime) },
    {
      key: 'actions',
      label: t(`${P}common.actions`),
      width: 140,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" data-testid="application-view" onClick={() => navigate(applicationPath(row))}>
            {t(`${P}common.detail`)}
          </Button>
          {row.status === 'PENDING_REVIEW' && (
            <Button type="link" size="small" danger onClick={() => setWithdrawing(row)}>
              {t(`${P}invoice.withdraw`)}
            </Button>
          )}
        </Space>
      ),
    },
  ];
  return (
    <ListPage<InvoiceApplication>
      testId="finance-application-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options) => exportApplications(list.query, options)} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1300, ...list.tableProps }}
    >
      <AppDialog
        open={!!withdrawing}
        title={t(`${P}invoice.withdraw`)}
        onCancel={() => setWithdrawing(undefined)}
        onConfirm={async () => {
          if (!withdrawing) return;
          await cancel.mutateAsync({ id: withdrawing.id, reason });
          toastSuccess(t(`${P}invoice.withdrawn`));
          setWithdrawing(undefined);
        }}
      >
        <Input.TextArea value={reason} onChange={(e) => setReason(e.target.value)} maxLength={200} placeholder={t(`${P}common.reason`)} />
      </AppDialog>
    </ListPage>
  );
}
