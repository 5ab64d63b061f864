import { ClockCircleOutlined, MailOutlined, MessageOutlined, PhoneOutlined } from '@ant-design/icons';
import { Button, Descriptions, Skeleton, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { opensAt, useCustomerService } from '@/lib/customer-service';
import { BLANK } from '@/lib/format';

/**
 * /helpCenter/onlineCustomer (open to every signed-in user): hotline, e-mail,
 * chat hours and the chat channel from the server's settings, whether chat is
 * open now and, when it is not, when it opens.
 */
export default function OnlineCustomerPage() {
  const { t } = useTranslation();
  const { data, isLoading, error, refetch } = useCustomerService();
  if (isLoading) return <Skeleton active />;
  if (error || !data) return <LoadErrorResult error={error} onRetry={() => void refetch()} />;
  const opening = opensAt(data);
  return (
    <div className="fd-detail-page" data-testid="online-customer">
      <ModuleCard
        title={t('route.onlineCustomer')}
        extra={<Tag color={data.chatAvailable ? 'success' : 'default'} data-testid="customer-status">{data.chatAvailable ? t('customer.open') : t('customer.closed')}</Tag>}
      >
        <Descriptions
          column={1}
          items={[
            { key: 'phone', label: <><PhoneOutlined /> {t('customer.phone')}</>, children: data.phone ? <a href={`tel:${data.phone}`} data-testid="customer-phone">{data.phone}</a> : BLANK },
            { key: 'hours', label: <><ClockCircleOutlined /> {t('customer.hours')}</>, children: <span data-testid="customer-hours">{data.hours || BLANK}</span> },
            { key: 'email', label: <><MailOutlined /> {t('customer.email')}</>, children: data.email ? <a href={`mailto:${data.email}`} data-testid="customer-email">{data.email}</a> : BLANK },
          ]}
        />
        {opening && <p className="fd-muted" data-testid="customer-opens">{t(opening.key, opening)}</p>}
        {data.chatUrl && (
          <Button type="primary" icon={<MessageOutlined />} href={data.chatUrl} target="_blank" rel="noopener noreferrer" disabled={!data.chatAvailable} data-testid="customer-chat">
            {t('service.chat')}
          </Button>
        )}
        <p className="fd-muted">{t('customer.hint')}</p>
      </ModuleCard>
    </div>
  );
}
