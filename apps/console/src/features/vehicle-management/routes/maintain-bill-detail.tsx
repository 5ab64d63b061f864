import { Button, Descriptions, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import '../messages';
import { useBillDetail } from '../api/repairs';
import { REPAIR_PATHS } from '../components/repair-labels';
import {
  BackButton,
  BillStatusTag,
  StatementStatusTag,
} from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/**
 * 维修账单详情 (billDetail / maintainBillDetail, and billNewDetail, as:maintain):
 * one bill with the statement it was raised from.
 */
export default function MaintainBillDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const detail = useBillDetail(params.get('id') ?? '');
  const m = (key: string) => t(`${P}.${key}`);
  if (detail.error)
    return (
      <LoadErrorResult
        error={detail.error}
        onRetry={() => void detail.refetch()}
      />
    );
  const bill = detail.data?.bill;
  const statement = detail.data?.statement;
  if (!bill || !statement) return <PageLoading />;
  return (
    <Space
      direction="vertical"
      style={{ width: '100%' }}
      data-testid="bill-detail"
    >
      <ModuleCard
        title={`${m('bill')} · ${bill.billNo}`}
        extra={<BackButton to={REPAIR_PATHS.bills} />}
      >
        <Descriptions column={3} size="small" bordered>
          <Descriptions.Item label={m('shop')}>
            {bill.shopName}
          </Descriptions.Item>
          <Descriptions.Item label={m('period')}>
            {bill.period}
          </Descriptions.Item>
          <Descriptions.Item label={m('status')}>
            <BillStatusTag status={bill.status} />
          </Descriptions.Item>
          <Descriptions.Item label={m('billAmount')}>
            {yuan(bill.amountFen)}
          </Descriptions.Item>
          <Descriptions.Item label={m('paid')}>
            {yuan(bill.paidFen)}
          </Descriptions.Item>
          <Descriptions.Item label={m('outstanding')}>
            {yuan(bill.outstandingFen)}
          </Descriptions.Item>
          <Descriptions.Item label={m('issuedTime')}>
            {formatTime(bill.issuedTime)}
          </Descriptions.Item>
          <Descriptions.Item label={m('dueTime')}>
            {formatTime(bill.dueTime, '{y}-{m}-{d}')}
          </Descriptions.Item>
        </Descriptions>
      </ModuleCard>
      <ModuleCard title={m('statement')}>
        <Descriptions column={3} size="small">
          <Descriptions.Item label={m('statementNo')}>
            <Button
              type="link"
              size="small"
              onClick={() =>
                navigate(
                  `${REPAIR_PATHS.statementDetail}?id=${encodeURIComponent(statement.id)}`,
                )
              }
            >
              {statement.statementNo}
            </Button>
          </Descriptions.Item>
          <Descriptions.Item label={m('orderCount')}>
            {statement.orderCount}
          </Descriptions.Item>
          <Descriptions.Item label={m('status')}>
            <StatementStatusTag status={statement.status} />
          </Descriptions.Item>
          <Descriptions.Item label={m('confirmedBy')}>
            {statement.confirmedBy}
          </Descriptions.Item>
          <Descriptions.Item label={m('confirmTime')}>
            {formatTime(statement.confirmTime)}
          </Descriptions.Item>
        </Descriptions>
      </ModuleCard>
    </Space>
  );
}
