import { ClockCircleOutlined, MailOutlined, PhoneOutlined } from '@ant-design/icons';
import { Descriptions, Skeleton, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { BLANK } from '@/lib/format';
import { useCustomerService } from '../api/help';

/** /helpCenter/onlineCustomer: the service phone, chat hours (08:00–22:00) and whether chat is open now. */
export default function OnlineCustomerPage() {
  const { t } = useTranslation();
  const { data, isLoading, error, refetch } = useCustomerService();
  if (isLoading) return <Skeleton active />;
  if (error || !data) return <LoadErrorResult error={error} onRetry={() => void refetch()} />;
  return (
    <div className="fd-detail-page" data-testid="online-customer">
      <ModuleCard
        title={t('route.onlineCustomer')}
        extra={<Tag color={data.chatAvailable ? 'success' : 'default'}>{data.chatAvailable ? t('customer.open') : t('customer.closed')}</Tag>}
      >
        <Descriptions
          column={1}
          items={[
            { key: 'phone', label: <><PhoneOutlined /> {t('customer.phone')}</>, children: data.phone ? <a href={`tel:${data.phone}`} data-testid="customer-phone">{data.phone}</a> : BLANK },
            { key: 'hours', label: <><ClockCircleOutlined /> {t('customer.hours')}</>, children: <span data-testid="customer-hours">{data.hours || BLANK}</span> },
            { key: 'email', label: <><MailOutlined /> {t('customer.email')}</>, children: data.email ? <a href={`mailto:${data.email}`}>{data.email}</a> : BLANK },
          ]}
        />
        <p className="fd-muted">{t('customer.hint')}</p>
      </ModuleCard>
    </div>
  );
}
