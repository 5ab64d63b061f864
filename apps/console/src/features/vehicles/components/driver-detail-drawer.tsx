import { EditOutlined } from '@ant-design/icons';
import { Button, Descriptions, Drawer, Spin, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadErrorResult } from '@/components/load-error';
import { OperationLogTable } from '@/components/operation-log-table';
import { DETAIL_BLANK, formatTime } from '@/lib/format';
import { SensitiveType } from '@/lib/mask';
import { driverLogKey, useDriver, type Driver } from '../api/drivers';
import { fetchOperationLogs } from '../api/operation-logs';
import { driverStatusColor, driverStatusLabel } from './driver-labels';
import { DriverImage, DriverReveal } from './driver-reveal';

const DATE = '{y}-{m}-{d}';
// A detail shows '-' for an empty value (tables show '--').
const text = (v: ReactNode) => (v === '' || v === null || v === undefined ? DETAIL_BLANK : v);

function DriverDescriptions({ driver }: { driver: Driver }) {
  const { t } = useTranslation();
  const d = (key: string) => t(`vehicles.driver.${key}`);
  const reveal = (masked: string | undefined, type: number) => <DriverReveal driverId={driver.id} masked={masked} sensitiveType={type} blank={DETAIL_BLANK} />;
  const image = (name: string | undefined, type: number) => <DriverImage driverId={driver.id} name={name} sensitiveType={type} blank={DETAIL_BLANK} />;
  return (
    <Descriptions bordered size="small" column={2} data-testid="driver-basic">
      <Descriptions.Item label={d('name')}>{driver.name}</Descriptions.Item>
      <Descriptions.Item label={t('vehicles.fields.org')}>{text(driver.orgName)}</Descriptions.Item>
      <Descriptions.Item label={d('phone')}>{reveal(driver.phone, SensitiveType.Phone)}</Descriptions.Item>
      <Descriptions.Item label={d('idNumber')}>{reveal(driver.idNumber, SensitiveType.IdNumber)}</Descriptions.Item>
      <Descriptions.Item label={d('employeeNo')}>{text(driver.employeeNo)}</Descriptions.Item>
      <Descriptions.Item label={d('status')}>
        <Tag color={driverStatusColor(driver.status)}>{text(driverStatusLabel(t, driver.status))}</Tag>
      </Descriptions.Item>
      <Descriptions.Item label={d('licenceClass')}>{text(driver.licenceClass)}</Descriptions.Item>
      <Descriptions.Item label={d('licenceFirstIssueTime')}>{text(formatTime(driver.licenceFirstIssueTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={d('licenceExpireTime')}>{text(formatTime(driver.licenceExpireTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={d('hireTime')}>{text(formatTime(driver.hireTime, DATE))}</Descriptions.Item>
      <Descriptions.Item label={d('boundPlate')}>{text(driver.boundPlateNumber)}</Descriptions.Item>
      <Descriptions.Item label={t('vehicles.fields.createTime')}>{text(formatTime(driver.createTime))}</Descriptions.Item>
      <Descriptions.Item label={d('address')}>{reveal(driver.address, SensitiveType.Address)}</Descriptions.Item>
      <Descriptions.Item label={d('idCardExpireTime')}>
        {driver.idCardLongTerm ? d('idCardLongTerm') : text(formatTime(driver.idCardExpireTime, DATE))}
      </Descriptions.Item>
      <Descriptions.Item label={d('licenceFront')}>{image(driver.licenceFront?.name, SensitiveType.LicenceFront)}</Descriptions.Item>
      <Descriptions.Item label={d('licenceBack')}>{image(driver.licenceBack?.name, SensitiveType.LicenceBack)}</Descriptions.Item>
      <Descriptions.Item label={d('idCardFront')}>{image(driver.idCardFront?.name, SensitiveType.IdFront)}</Descriptions.Item>
      <Descriptions.Item label={d('idCardBack')}>{image(driver.idCardBack?.name, SensitiveType.IdBack)}</Descriptions.Item>
      <Descriptions.Item label={t('vehicles.fields.remark')} span={2}>
        {text(driver.remark)}
      </Descriptions.Item>
    </Descriptions>
  );
}

/**
 * A driver's detail: its fields (personal ones masked, each revealed with the
 * audit) and its operation log.
 */
export function DriverDetailDrawer({ driverId, onClose, onEdit }: { driverId: string | null; onClose: () => void; onEdit: (id: string) => void }) {
  const { t } = useTranslation();
  const driver = useDriver(driverId ?? undefined);
  const data = driver.data;
  return (
    <Drawer
      open={!!driverId}
      size={760}
      title={data ? t('vehicles.driver.detailTitle', { name: data.name }) : t('vehicles.driver.detail')}
      onClose={onClose}
      destroyOnHidden
      extra={
        driverId && (
          <Button type="primary" icon={<EditOutlined />} onClick={() => onEdit(driverId)} data-testid="driver-detail-edit">
            {t('vehicles.edit')}
          </Button>
        )
      }
    >
      <div data-testid="driver-detail">
        {driver.error ? (
          <LoadErrorResult error={driver.error} onRetry={() => void driver.refetch()} />
        ) : !data ? (
          <Spin className="fd-page-loading" />
        ) : (
          <>
            <DriverDescriptions driver={data} />
            <Typography.Title level={5} style={{ marginTop: 24 }}>
              {t('opLog.title')}
            </Typography.Title>
            <OperationLogTable queryKey={driverLogKey(data.id)} fetch={(page, size) => fetchOperationLogs('DRIVER', data.id, page, size)} />
          </>
        )}
      </div>
    </Drawer>
  );
}
