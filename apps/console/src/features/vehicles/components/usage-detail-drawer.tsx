import { Button, Descriptions, Drawer, Space, Spin, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { LoadErrorResult } from '@/components/load-error';
import { OperationLogTable } from '@/components/operation-log-table';
import { detailText, formatTime } from '@/lib/format';
import { fetchOperationLogs } from '../api/operation-logs';
import { usageLogKey, useUsageRecord, type UsageRecord } from '../api/usage-records';
import { isOpenRecord, kindHasEnd, usageStatusColor } from './usage-labels';
import { USAGE_TERMS } from './usage-terms';
import { codeLabel, type UsageKind } from './vehicle-labels';

const DATE = '{y}-{m}-{d}';

function UsageDescriptions({ record, kind }: { record: UsageRecord; kind: UsageKind }) {
  const { t } = useTranslation();
  const u = (key: string) => t(`vehicles.usage.${key}`);
  return (
    <Descriptions bordered size="small" column={2} data-testid="usage-basic">
      <Descriptions.Item label={t('vehicles.fields.plateNumber')}>{record.plateNumber}</Descriptions.Item>
      <Descriptions.Item label={t('vehicles.fields.vin')}>{detailText(record.vin)}</Descriptions.Item>
      <Descriptions.Item label={t('vehicles.fields.org')}>{detailText(record.orgName)}</Descriptions.Item>
      <Descriptions.Item label={u('status')}>
        <Tag color={usageStatusColor(record.status)}>{detailText(codeLabel(t, 'usageStatuses', record.status))}</Tag>
      </Descriptions.Item>
      <Descriptions.Item label={u('contractNo')}>{detailText(record.contractNo)}</Descriptions.Item>
      <Descriptions.Item label={u('counterparty')}>{detailText(record.counterparty)}</Descriptions.Item>
      <Descriptions.Item label={u('startTime')}>{detailText(formatTime(record.startTime, DATE))}</Descriptions.Item>
      {kindHasEnd(kind) && <Descriptions.Item label={u('endTime')}>{detailText(formatTime(record.endTime, DATE))}</Descriptions.Item>}
      {USAGE_TERMS[kind].map((term) => (
        <Descriptions.Item key={term.key} label={t(term.label)}>
          {detailText(term.text(record, t))}
        </Descriptions.Item>
      ))}
      <Descriptions.Item label={t('vehicles.fields.createTime')}>{detailText(formatTime(record.createTime))}</Descriptions.Item>
      <Descriptions.Item label={u('updateTime')}>{detailText(formatTime(record.updateTime))}</Descriptions.Item>
      <Descriptions.Item label={u('attachments')} span={2}>
        {detailText(record.attachments.map((a) => a.name))}
      </Descriptions.Item>
      <Descriptions.Item label={t('vehicles.fields.remark')} span={2}>
        {detailText(record.remark)}
      </Descriptions.Item>
    </Descriptions>
  );
}

/** One usage record: its contract, period and terms, and its operation log; edit and end while it is open. */
export function UsageDetailDrawer({
  kind, recordId, onClose, onEdit, onEnd,
}: { kind: UsageKind; recordId: string | null; onClose: () => void; onEdit: (id: string) => void; onEnd: (record: UsageRecord) => void }) {
  const { t } = useTranslation();
  const record = useUsageRecord(recordId ?? undefined);
  const data = record.data;
  return (
    <Drawer
      open={!!recordId}
      size={760}
      title={data ? t('vehicles.usage.detailTitle', { plate: data.plateNumber }) : t('vehicles.usage.detail')}
      onClose={onClose}
      destroyOnHidden
      extra={
        data &&
        isOpenRecord(data.status) && (
          <Space>
            <Button onClick={() => onEdit(data.id)}>{t('vehicles.edit')}</Button>
            <Button danger onClick={() => onEnd(data)}>
              {t('vehicles.usage.end')}
            </Button>
          </Space>
        )
      }
    >
      <div data-testid="usage-detail">
        {record.error ? (
          <LoadErrorResult error={record.error} onRetry={() => void record.refetch()} />
        ) : !data ? (
          <Spin className="fd-page-loading" />
        ) : (
          <>
            <UsageDescriptions record={data} kind={kind} />
            <Typography.Title level={5} style={{ marginTop: 24 }}>
              {t('opLog.title')}
            </Typography.Title>
            <OperationLogTable queryKey={usageLogKey(data.id)} fetch={(page, size) => fetchOperationLogs('USAGE_RECORD', data.id, page, size)} />
          </>
        )}
      </div>
    </Drawer>
  );
}
