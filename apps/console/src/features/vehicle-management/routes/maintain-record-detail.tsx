import { Button, Descriptions, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { codeLabel } from '@/lib/codes';
import { detailText, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import '../messages';
import { useRecordDetail } from '../api/repairs';
import { REPAIR_PATHS } from '../components/repair-labels';
import { BackButton, ItemsTable } from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/** 维修记录详情 (maintainRecordDetail, as:maintain): one recorded service with its order. */
export default function MaintainRecordDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const detail = useRecordDetail(params.get('id') ?? '');
  const m = (key: string) => t(`${P}.${key}`);
  if (detail.error)
    return (
      <LoadErrorResult
        error={detail.error}
        onRetry={() => void detail.refetch()}
      />
    );
  const record = detail.data?.record;
  if (!record) return <PageLoading />;
  return (
    <ModuleCard
      title={`${m('record')} · ${record.orderNo}`}
      extra={<BackButton to={REPAIR_PATHS.records} />}
    >
      <Space
        direction="vertical"
        style={{ width: '100%' }}
        data-testid="record-detail"
      >
        <Descriptions column={3} size="small" bordered>
          <Descriptions.Item label={m('orderNo')}>
            <Button
              type="link"
              size="small"
              onClick={() =>
                navigate(
                  `${REPAIR_PATHS.detail}?id=${encodeURIComponent(record.repairOrderId)}`,
                )
              }
            >
              {record.orderNo}
            </Button>
          </Descriptions.Item>
          <Descriptions.Item label={m('plateNumber')}>
            {record.plateNumber}
          </Descriptions.Item>
          <Descriptions.Item label={m('kind')}>
            {codeLabel(t, `${P}.kinds`, record.kind)}
          </Descriptions.Item>
          <Descriptions.Item label={m('shop')}>
            {record.shopName}
          </Descriptions.Item>
          <Descriptions.Item label={m('completedTime')}>
            {formatTime(record.completedTime)}
          </Descriptions.Item>
          <Descriptions.Item
            label={m('completedOdometer')}
          >{`${Math.round(record.odometerM / 1000)} ${t('vehicleManagement:common.km')}`}</Descriptions.Item>
          <Descriptions.Item label={m('finalTotal')}>
            {yuan(record.totalFen)}
          </Descriptions.Item>
          <Descriptions.Item label={m('org')}>
            {detailText(record.orgName)}
          </Descriptions.Item>
          <Descriptions.Item label={m('operator')}>
            {detailText(record.operatorName)}
          </Descriptions.Item>
          <Descriptions.Item label={m('remark')} span={3}>
            {detailText(record.remark)}
          </Descriptions.Item>
        </Descriptions>
        <ItemsTable items={record.items} />
      </Space>
    </ModuleCard>
  );
}
