import { Button, Descriptions, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { codeLabel } from '@/lib/codes';
import { detailText, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import '../messages';
import { useOrderDetail } from '../api/repairs';
import {
  CompleteDialog,
  QuoteDialog,
  ReasonDialog,
  useCancelDialogSubmit,
} from '../components/order-dialogs';
import { REPAIR_PATHS } from '../components/repair-labels';
import {
  BackButton,
  ItemsTable,
  LogsTable,
  OrderStatusTag,
} from '../components/repair-parts';

const P = 'vehicleManagement:repair';
const CANCELLABLE = ['AWAITING_QUOTE', 'QUOTED', 'AWAITING_APPROVAL'];

/**
 * 维修单详情 (orderDetail, as:maintain): one order with its quote, price,
 * completion and operation log, and the moves its state allows: enter the
 * shop's quote, confirm the price (priceConfirm), complete, cancel.
 */
export default function OrderDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const detail = useOrderDetail(id);
  const [dialog, setDialog] = useState<'quote' | 'complete' | 'cancel'>();
  const order = detail.data?.order;
  const cancel = useCancelDialogSubmit(order);
  const m = (key: string) => t(`${P}.${key}`);
  if (detail.error)
    return (
      <LoadErrorResult
        error={detail.error}
        onRetry={() => void detail.refetch()}
      />
    );
  if (!order) return <PageLoading />;
  const status = order.status ?? '';

  return (
    <Space
      direction="vertical"
      style={{ width: '100%' }}
      data-testid="repair-detail"
    >
      <ModuleCard
        title={`${m('basic')} · ${order.orderNo}`}
        extra={
          <Space>
            {(status === 'AWAITING_QUOTE' || status === 'QUOTED') && (
              <Button
                onClick={() => setDialog('quote')}
                data-testid="repair-quote"
              >
                {m('quote')}
              </Button>
            )}
            {status === 'QUOTED' && (
              <Button
                type="primary"
                onClick={() =>
                  navigate(
                    `${REPAIR_PATHS.price}?id=${encodeURIComponent(order.id)}`,
                  )
                }
                data-testid="repair-price"
              >
                {m('priceConfirm')}
              </Button>
            )}
            {status === 'IN_REPAIR' && (
              <Button
                type="primary"
                onClick={() => setDialog('complete')}
                data-testid="repair-complete"
              >
                {m('complete')}
              </Button>
            )}
            {CANCELLABLE.includes(status) && (
              <Button
                danger
                onClick={() => setDialog('cancel')}
                data-testid="repair-cancel"
              >
                {m('cancel')}
              </Button>
            )}
            <BackButton to={REPAIR_PATHS.orders} />
          </Space>
        }
      >
        <Descriptions column={3} size="small" bordered>
          <Descriptions.Item label={m('status')}>
            <OrderStatusTag status={order.status} />
          </Descriptions.Item>
          <Descriptions.Item label={m('plateNumber')}>
            {order.plateNumber}
          </Descriptions.Item>
          <Descriptions.Item label={m('org')}>
            {detailText(order.orgName)}
          </Descriptions.Item>
          <Descriptions.Item label={m('kind')}>
            {codeLabel(t, `${P}.kinds`, order.kind)}
          </Descriptions.Item>
          <Descriptions.Item label={m('shop')}>
            {order.shopName}
          </Descriptions.Item>
          <Descriptions.Item
            label={m('odometer')}
          >{`${Math.round(order.odometerM / 1000)} ${t('vehicleManagement:common.km')}`}</Descriptions.Item>
          <Descriptions.Item label={m('contactName')}>
            {detailText(order.contactName)}
          </Descriptions.Item>
          <Descriptions.Item label={m('contactPhone')}>
            {detailText(order.contactMaskedPhone)}
          </Descriptions.Item>
          <Descriptions.Item label={m('createTime')}>
            {formatTime(order.createTime)}
          </Descriptions.Item>
          <Descriptions.Item label={m('fault')} span={3}>
            {detailText(order.faultDescription)}
          </Descriptions.Item>
          {order.cancelReason && (
            <Descriptions.Item label={m('cancelReason')} span={3}>
              {order.cancelReason}
            </Descriptions.Item>
          )}
        </Descriptions>
      </ModuleCard>
      <ModuleCard title={m('quoteInfo')}>
        <Descriptions column={3} size="small">
          <Descriptions.Item label={m('quoteTotal')}>
            <span data-testid="repair-quote-total">
              {order.quoteTime ? yuan(order.quoteTotalFen) : '--'}
            </span>
          </Descriptions.Item>
          <Descriptions.Item label={m('confirmedTotal')}>
            {order.confirmTime ? yuan(order.confirmedTotalFen) : '--'}
          </Descriptions.Item>
          <Descriptions.Item label={m('finalTotal')}>
            {order.completedTime ? yuan(order.finalTotalFen) : '--'}
          </Descriptions.Item>
          <Descriptions.Item label={m('rejectReason')}>
            {detailText(order.quoteRejectReason)}
          </Descriptions.Item>
          <Descriptions.Item label={m('completedTime')}>
            {formatTime(order.completedTime)}
          </Descriptions.Item>
          <Descriptions.Item label={m('statement')}>
            {order.statementId ? (
              <Button
                type="link"
                size="small"
                onClick={() =>
                  navigate(
                    `${REPAIR_PATHS.statementDetail}?id=${encodeURIComponent(order.statementId)}`,
                  )
                }
                data-testid="repair-statement-link"
              >
                {m('statement')}
              </Button>
            ) : (
              '--'
            )}
          </Descriptions.Item>
        </Descriptions>
        <ItemsTable items={order.quoteItems} />
      </ModuleCard>
      <ModuleCard title={m('logs')}>
        <LogsTable logs={detail.data?.logs ?? []} />
      </ModuleCard>
      <QuoteDialog
        order={dialog === 'quote' ? order : undefined}
        onClose={() => setDialog(undefined)}
      />
      <CompleteDialog
        order={dialog === 'complete' ? order : undefined}
        onClose={() => setDialog(undefined)}
      />
      <ReasonDialog
        open={dialog === 'cancel'}
        title={m('cancel')}
        onSubmit={cancel}
        onClose={() => setDialog(undefined)}
      />
    </Space>
  );
}
