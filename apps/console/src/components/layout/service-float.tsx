import { ClockCircleOutlined, CustomerServiceOutlined, MessageOutlined, PhoneOutlined } from '@ant-design/icons';
import { Button, FloatButton, Popover } from 'antd';
import { useTranslation } from 'react-i18next';
import { opensAt, useCustomerService } from '@/lib/customer-service';
import { MenuLink } from './menu-link';

/**
 * Online customer-service float (console spec §1): hotline, chat hours and chat, from
 * the same server source as the online customer page. Outside the hours it
 * says when chat opens.
 */
export function ServiceFloat() {
  const { t } = useTranslation();
  const { data } = useCustomerService();
  const opening = data ? opensAt(data) : undefined;
  const content = (
    <div className="fd-service" data-testid="service-float">
      {data && (
        <>
          <div className="fd-service__row">
            <PhoneOutlined /> <span data-testid="service-float-phone">{t('service.phone', { phone: data.phone })}</span>
          </div>
          <div className="fd-service__row fd-service__muted">
            <ClockCircleOutlined /> {t('service.hours', { hours: data.hours })}
          </div>
          {opening && <div className="fd-service__row fd-service__muted" data-testid="service-float-opens">{t(opening.key, opening)}</div>}
        </>
      )}
      <MenuLink path="/helpCenter/onlineCustomer">
        <Button type="primary" block icon={<MessageOutlined />}>
          {data?.chatAvailable ? t('service.chat') : t('service.details')}
        </Button>
      </MenuLink>
    </div>
  );
  return (
    <Popover content={content} title={t('service.title')} placement="leftBottom" trigger={['hover', 'click']}>
      <FloatButton icon={<CustomerServiceOutlined />} type="primary" style={{ insetInlineEnd: 28, insetBlockEnd: 36 }} aria-label={t('service.title')} data-testid="service-float-button" />
    </Popover>
  );
}
