import { Alert, Button, Descriptions, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import {
  useConfirmPrice,
  useOrderDetail,
  useRepairConfig,
} from '../api/repairs';
import { ReasonDialog } from '../components/order-dialogs';
import { REPAIR_PATHS } from '../components/repair-labels';
import {
  BackButton,
  ItemsTable,
  OrderStatusTag,
} from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/**
 * 价格确认 (priceConfirm, as:maintain): the shop's quote of a QUOTED order,
 * accepted or sent back. Above the configuration's threshold accepting
 * raises an org approval (/approve) and the order waits 审批中.
 */
export default function PriceConfirmPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const detail = useOrderDetail(id);
  const config = useRepairConfig();
  const confirm = useConfirmPrice();
  const [rejecting, setRejecting] = useState(false);
  const m = (key: string) => t(`${P}.${key}`);
  const order = detail.data?.order;
  if (detail.error)
    return (
      <LoadErrorResult
        error={detail.error}
        onRetry={() => void detail.refetch()}
      />
    );
  if (!order || !config.data) return <PageLoading />;
  const threshold = config.data.approvalThresholdFen;
  const needsApproval = order.quoteTotalFen > threshold;
  const back = () =>
    navigate(`${REPAIR_PATHS.detail}?id=${encodeURIComponent(order.id)}`);

  const accept = async () => {
    const answer = await confirm.mutateAsync({
      id: order.id,
      body: {
        accepted: true,
        expectedTotalFen: order.quoteTotalFen,
        reason: '',
      },
    });
    toastSuccess(
      m(answer.status === 'AWAITING_APPROVAL' ? 'approvalDone' : 'acceptDone'),
    );
    back();
  };
  const reject = async (reason: string) => {
    await confirm.mutateAsync({
      id: order.id,
      body: { accepted: false, expectedTotalFen: order.quoteTotalFen, reason },
    });
    toastSuccess(m('rejectDone'));
    back();
  };

  return (
    <ModuleCard
      title={`${m('priceConfirm')} · ${order.orderNo}`}
      extra={<BackButton to={REPAIR_PATHS.orders} />}
    >
      <Space
        direction="vertical"
        style={{ width: '100%' }}
        data-testid="repair-price-page"
      >
        <Descriptions column={3} size="small">
          <Descriptions.Item label={m('plateNumber')}>
            {order.plateNumber}
          </Descriptions.Item>
          <Descriptions.Item label={m('shop')}>
            {order.shopName}
          </Descriptions.Item>
          <Descriptions.Item label={m('status')}>
            <OrderStatusTag status={order.status} />
          </Descriptions.Item>
          <Descriptions.Item label={m('quoteTotal')}>
            {yuan(order.quoteTotalFen)}
          </Descriptions.Item>
          <Descriptions.Item label={m('quoteRemark')}>
            {order.quoteRemark || '--'}
          </Descriptions.Item>
        </Descriptions>
        <ItemsTable items={order.quoteItems} />
        <Alert
          type={needsApproval ? 'warning' : 'info'}
          data-testid="repair-price-hint"
          message={t(`${P}.${needsApproval ? 'approvalHint' : 'directHint'}`, {
            total: yuan(order.quoteTotalFen),
            threshold: yuan(threshold),
          })}
        />
        {order.status === 'QUOTED' && (
          <Space>
            <Button
              type="primary"
              loading={confirm.isPending}
              onClick={() => void accept()}
              data-testid="repair-accept"
            >
              {m('accept')}
            </Button>
            <Button
              onClick={() => setRejecting(true)}
              data-testid="repair-reject"
            >
              {m('reject')}
            </Button>
          </Space>
        )}
      </Space>
      <ReasonDialog
        open={rejecting}
        title={m('reject')}
        onSubmit={reject}
        onClose={() => setRejecting(false)}
      />
    </ModuleCard>
  );
}
