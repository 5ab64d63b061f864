import { Button, Descriptions, Space, Table } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { formatTime, detailText } from '@/lib/format';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import {
  useConfirmStatement,
  useStatementDetail,
  type RepairOrder,
} from '../api/repairs';
import { ReasonDialog } from '../components/order-dialogs';
import { REPAIR_PATHS } from '../components/repair-labels';
import {
  BackButton,
  LogsTable,
  OrderStatusTag,
  StatementStatusTag,
} from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/**
 * 对账单详情 (statementDetail, as:maintain): a shop's statement of a month
 * with its orders and log; confirming raises the repair bill, disputing
 * keeps it open for the shop's correction.
 */
export default function StatementDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const detail = useStatementDetail(params.get('id') ?? '');
  const confirm = useConfirmStatement();
  const [dialog, setDialog] = useState<'confirm' | 'dispute'>();
  const m = (key: string) => t(`${P}.${key}`);
  if (detail.error)
    return (
      <LoadErrorResult
        error={detail.error}
        onRetry={() => void detail.refetch()}
      />
    );
  const statement = detail.data?.statement;
  if (!statement) return <PageLoading />;
  const open =
    statement.status === 'PENDING_CONFIRMATION' ||
    statement.status === 'DISPUTED';
  const decide = async (accepted: boolean, reason = '') => {
    await confirm.mutateAsync({
      id: statement.id,
      body: {
        accepted,
        expectedTotalFen: statement.totalFen,
        disputeReason: reason,
      },
    });
    toastSuccess(m(accepted ? 'statementConfirmed' : 'statementDisputed'));
  };
  return (
    <Space
      direction="vertical"
      style={{ width: '100%' }}
      data-testid="statement-detail"
    >
      <ModuleCard
        title={`${m('statement')} · ${statement.statementNo}`}
        extra={
          <Space>
            {open && (
              <Button
                type="primary"
                onClick={() => setDialog('confirm')}
                data-testid="statement-confirm"
              >
                {m('confirmStatement')}
              </Button>
            )}
            {statement.status === 'PENDING_CONFIRMATION' && (
              <Button
                onClick={() => setDialog('dispute')}
                data-testid="statement-dispute"
              >
                {m('dispute')}
              </Button>
            )}
            {statement.billId && (
              <Button
                onClick={() =>
                  navigate(
                    `${REPAIR_PATHS.billDetail}?id=${encodeURIComponent(statement.billId)}`,
                  )
                }
                data-testid="statement-bill"
              >
                {m('bill')}
              </Button>
            )}
            <BackButton to={REPAIR_PATHS.statements} />
          </Space>
        }
      >
        <Descriptions column={3} size="small" bordered>
          <Descriptions.Item label={m('shop')}>
            {statement.shopName}
          </Descriptions.Item>
          <Descriptions.Item label={m('period')}>
            {statement.period}
          </Descriptions.Item>
          <Descriptions.Item label={m('status')}>
            <StatementStatusTag status={statement.status} />
          </Descriptions.Item>
          <Descriptions.Item label={m('orderCount')}>
            {statement.orderCount}
          </Descriptions.Item>
          <Descriptions.Item label={m('statementTotal')}>
            <span data-testid="statement-total">
              {yuan(statement.totalFen)}
            </span>
          </Descriptions.Item>
          <Descriptions.Item label={m('issuedTime')}>
            {formatTime(statement.issuedTime)}
          </Descriptions.Item>
          <Descriptions.Item label={m('confirmedBy')}>
            {detailText(statement.confirmedBy)}
          </Descriptions.Item>
          <Descriptions.Item label={m('confirmTime')}>
            {formatTime(statement.confirmTime)}
          </Descriptions.Item>
          <Descriptions.Item label={m('disputeReason')}>
            {detailText(statement.disputeReason)}
          </Descriptions.Item>
        </Descriptions>
      </ModuleCard>
      <ModuleCard title={m('orders')}>
        <Table<RepairOrder>
          size="small"
          rowKey="id"
          pagination={false}
          dataSource={detail.data?.orders ?? []}
          data-testid="statement-orders"
          columns={[
            {
              title: m('orderNo'),
              render: (_, row) => (
                <Button
                  type="link"
                  size="small"
                  onClick={() =>
                    navigate(
                      `${REPAIR_PATHS.detail}?id=${encodeURIComponent(row.id)}`,
                    )
                  }
                >
                  {row.orderNo}
                </Button>
              ),
            },
            { title: m('plateNumber'), dataIndex: 'plateNumber' },
            {
              title: m('status'),
              render: (_, row) => <OrderStatusTag status={row.status} />,
            },
            {
              title: m('completedTime'),
              render: (_, row) => formatTime(row.completedTime),
            },
            {
              title: m('finalTotal'),
              align: 'right',
              render: (_, row) => yuan(row.finalTotalFen),
            },
          ]}
        />
      </ModuleCard>
      <ModuleCard title={m('logs')}>
        <LogsTable logs={detail.data?.logs ?? []} />
      </ModuleCard>
      <AppDialog
        open={dialog === 'confirm'}
        title={m('confirmStatement')}
        onCancel={() => setDialog(undefined)}
        onConfirm={async () => {
          await decide(true);
          setDialog(undefined);
        }}
        destroyOnHidden
      >
        <p data-testid="statement-confirm-hint">
          {t(`${P}.confirmStatementHint`, { total: yuan(statement.totalFen) })}
        </p>
      </AppDialog>
      <ReasonDialog
        open={dialog === 'dispute'}
        title={m('dispute')}
        onSubmit={(reason) => decide(false, reason)}
        onClose={() => setDialog(undefined)}
      />
    </Space>
  );
}
