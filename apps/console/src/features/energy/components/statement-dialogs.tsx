import { Alert, DatePicker, Descriptions, Drawer, Form, Input, Space, Button, Spin, Table, Tag } from 'antd';
import type { Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { LoadErrorResult } from '@/components/load-error';
import dayjs from 'dayjs';
import { BLANK, DATE_FORMAT, DETAIL_BLANK, detailText, formatTime, MONTH_FORMAT } from '@/lib/format';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import { downloadStatement, generateKind, useConfirmStatement, useGenerateStatement, useStatement, useStatementCardLines, type Statement, type StatementCardLine } from '../api/statements';
import { PATHS, pathWith } from '../paths';
import { codeLabel, kwh, STATEMENT_STATUS_COLORS } from './labels';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

/** The sessions list's start range of a statement month (the list needs a range). */
export function monthRange(month: string): { startTimeStart: string; startTimeEnd: string } {
  const first = dayjs(`${month}-01`);
  return { startTimeStart: first.format(DATE_FORMAT), startTimeEnd: first.endOf('month').format(DATE_FORMAT) };
}

/** The workbook's download button; waits for the file while it is being fetched. */
export function StatementDownloadButton({ statement, size }: { statement: Statement; size?: 'small' | 'middle' }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      await downloadStatement(statement);
    } catch {
      // The download helper already said why.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button type="link" size={size} loading={busy} disabled={!statement.hasFile} title={statement.hasFile ? undefined : t('energy:statements.noFile')} onClick={() => void run()} data-testid="statement-download">
      {t('energy:statements.download')}
    </Button>
  );
}

/**
 * 确认 / 提出异议: confirming sends the total the user saw (the server refuses if
 * it changed since); a dispute needs its reason.
 */
export function ConfirmStatementDialog({ statement, accepted, onClose }: { statement?: Statement; accepted: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ reason?: string }>();
  const confirm = useConfirmStatement();
  useEffect(() => {
    if (statement) form.resetFields();
  }, [statement, form]);
  const submit = async () => {
    if (!statement) return;
    const values = await form.validateFields();
    await confirm.mutateAsync({ id: statement.id, body: { accepted, expectedTotalFen: statement.totalFen, disputeReason: accepted ? '' : (values.reason ?? '').trim() } });
    toastSuccess(t(accepted ? 'energy:statements.confirmed' : 'energy:statements.disputed'));
    onClose();
  };
  return (
    <AppDialog open={!!statement} width={520} title={t(accepted ? 'energy:statements.confirmTitle' : 'energy:statements.disputeTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Alert type={accepted ? 'info' : 'warning'} showIcon title={t('energy:statements.confirmText', { month: statement?.month, amount: yuan(statement?.totalFen) })} style={{ marginBottom: 12 }} />
      {!accepted && (
        <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="disputeForm">
          <Form.Item name="reason" label={t('energy:statements.disputeReason')} rules={[{ required: true, whitespace: true, message: t('energy:statements.disputeRequired') }]}>
            <Input.TextArea rows={3} maxLength={200} showCount />
          </Form.Item>
        </Form>
      )}
    </AppDialog>
  );
}

/**
 * 生成本月账单: builds the chosen month's statement now — this month as a draft
 * with the sessions so far (rebuilt each time, never confirmed), a closed month
 * issued when it has none — and hands the built statement back to open it.
 */
export function GenerateStatementDialog({ open, onClose, onGenerated }: { open: boolean; onClose: () => void; onGenerated: (statement: Statement) => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ month: Dayjs }>();
  const generate = useGenerateStatement();
  const month = Form.useWatch('month', form);
  const kind = month ? generateKind(month.format(MONTH_FORMAT)) : undefined;
  const submit = async () => {
    const values = await form.validateFields();
    const statement = await generate.mutateAsync(values.month.format(MONTH_FORMAT));
    toastSuccess(t('energy:statements.generated'));
    onClose();
    onGenerated(statement);
  };
  return (
    <AppDialog open={open} width={520} title={t('energy:statements.generateTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="generateStatementForm" initialValues={{ month: dayjs() }} preserve={false}>
        <Form.Item name="month" label={t('energy:statements.generateMonth')} rules={[{ required: true, message: t('energy:statements.generateMonthRequired') }]}>
          <DatePicker picker="month" allowClear={false} disabledDate={(d) => d.isAfter(dayjs(), 'month')} style={{ width: 200 }} data-testid="statement-generate-month" />
        </Form.Item>
      </Form>
      {kind && (
        <Alert
          type={kind === 'future' ? 'error' : 'info'}
          showIcon
          title={t(kind === 'draft' ? 'energy:statements.generateDraftHint' : kind === 'closed' ? 'energy:statements.generateClosedHint' : 'energy:statements.generateFutureHint')}
        />
      )}
    </AppDialog>
  );
}

/** A statement's card lines, by organisation then card number, a page at a time. */
function StatementCardLines({ statementId }: { statementId: string }) {
  const { t } = useTranslation();
  const [paging, setPaging] = useState({ page: 1, size: 10 });
  const lines = useStatementCardLines(statementId, paging.page, paging.size);
  if (lines.error) return <LoadErrorResult error={lines.error} onRetry={() => void lines.refetch()} />;
  return (
    <Table<StatementCardLine>
      rowKey={(l) => `${l.orgId}:${l.cardId}`}
      size="small"
      loading={lines.isFetching}
      dataSource={lines.data?.list ?? []}
      scroll={{ x: 900 }}
      pagination={{
        current: paging.page,
        pageSize: paging.size,
        total: lines.data?.total ?? 0,
        showSizeChanger: true,
        size: 'small',
        onChange: (page, size) => setPaging({ page: size === paging.size ? page : 1, size }),
      }}
      data-testid="statement-card-lines"
      columns={[
        { key: 'org', title: t('energy:fields.org'), dataIndex: 'orgName', width: 140, ellipsis: true, render: (v: string) => v || BLANK },
        { key: 'card', title: t('energy:fields.cardNo'), dataIndex: 'cardNo', width: 150 },
        { key: 'plate', title: t('energy:fields.plateNumber'), dataIndex: 'plateNumber', width: 110, render: (v: string) => v || BLANK },
        { key: 'driver', title: t('energy:statements.driver'), dataIndex: 'driverName', width: 100, render: (v: string) => v || BLANK },
        { key: 'sessions', title: t('energy:statements.sessions'), dataIndex: 'sessionCount', width: 90, align: 'right' },
        { key: 'energy', title: t('energy:statements.energy'), dataIndex: 'energyWh', width: 100, align: 'right', render: (wh: number) => kwh(wh) },
        { key: 'electricity', title: t('energy:statements.electricity'), dataIndex: 'electricityFen', width: 100, align: 'right', render: (fen: number) => yuan(fen) },
        { key: 'service', title: t('energy:statements.serviceFee'), dataIndex: 'serviceFeeFen', width: 100, align: 'right', render: (fen: number) => yuan(fen) },
        { key: 'total', title: t('energy:statements.total'), dataIndex: 'totalFen', width: 120, align: 'right', render: (fen: number) => yuan(fen) },
      ]}
    />
  );
}

/** A statement's figures, its per-organisation and per-card lines, with a way to its sessions. */
export function StatementDrawer({ statementId, onClose }: { statementId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const statement = useStatement(statementId);
  const s = statement.data;
  const item = (label: string, value: unknown) => <Descriptions.Item label={label}>{detailText(value)}</Descriptions.Item>;
  return (
    <Drawer
      open={!!statementId}
      size={880}
      title={t('energy:statements.detailTitle')}
      onClose={onClose}
      destroyOnHidden
      extra={
        s && (
          <Space>
            <StatementDownloadButton statement={s} />
            <Button onClick={() => navigate(pathWith(PATHS.consumeRecord, { statementMonth: s.month, ...monthRange(s.month) }))}>
              {t('energy:statements.sessionList')}
            </Button>
          </Space>
        )
      }
    >
      {statement.error ? (
        <LoadErrorResult error={statement.error} onRetry={() => void statement.refetch()} />
      ) : (
        <Spin spinning={statement.isLoading}>
          {s && (
            <>
              <Descriptions column={2} size="small" bordered data-testid="statement-detail">
                {item(t('energy:statements.statementNo'), s.statementNo)}
                {item(t('energy:statements.month'), s.month)}
                <Descriptions.Item label={t('energy:fields.status')}>
                  {s.status ? <Tag color={STATEMENT_STATUS_COLORS[s.status]}>{codeLabel(t, 'statementStatus', s.status)}</Tag> : DETAIL_BLANK}
                </Descriptions.Item>
                {item(t('energy:statements.sessions'), s.sessionCount)}
                {item(t('energy:statements.energy'), kwh(s.energyWh))}
                {item(t('energy:statements.electricity'), yuan(s.electricityFen))}
                {item(t('energy:statements.serviceFee'), yuan(s.serviceFeeFen))}
                {item(t('energy:statements.parkingFee'), yuan(s.parkingFeeFen))}
                {item(t('energy:statements.timeFee'), yuan(s.timeFeeFen))}
                {item(t('energy:statements.fixedFee'), yuan(s.fixedFeeFen))}
                {item(t('energy:statements.reservationFee'), yuan(s.reservationFeeFen))}
                {item(t('energy:statements.discount'), yuan(s.discountFen))}
                {item(t('energy:statements.refunded'), yuan(s.refundedFen))}
                {item(t('energy:statements.total'), yuan(s.totalFen))}
                {item(t('energy:statements.generatedTime'), formatTime(s.generatedTime))}
                {item(t('energy:statements.confirmedBy'), s.confirmedBy)}
                {item(t('energy:statements.confirmTime'), formatTime(s.confirmTime))}
              </Descriptions>
              {s.disputeReason && <Alert type="warning" showIcon style={{ marginTop: 12 }} title={t('energy:statements.disputeReasonShown', { reason: s.disputeReason })} />}
              <h4 style={{ margin: '16px 0 8px' }}>{t('energy:statements.orgLines')}</h4>
              <Table
                rowKey="orgId"
                size="small"
                pagination={false}
                dataSource={s.orgLines}
                columns={[
                  { key: 'org', title: t('energy:fields.org'), dataIndex: 'orgName' },
                  { key: 'sessions', title: t('energy:statements.sessions'), dataIndex: 'sessionCount', align: 'right' },
                  { key: 'energy', title: t('energy:statements.energy'), dataIndex: 'energyWh', align: 'right', render: (wh: number) => kwh(wh) },
                  { key: 'total', title: t('energy:statements.total'), dataIndex: 'totalFen', align: 'right', render: (fen: number) => yuan(fen) },
                ]}
              />
              <h4 style={{ margin: '16px 0 8px' }}>
                {t('energy:statements.cardLines')} <span className="fd-muted">{t('energy:statements.cardLinesHint')}</span>
              </h4>
              <StatementCardLines statementId={s.id} />
            </>
          )}
        </Spin>
      )}
    </Drawer>
  );
}
