import { CustomerServiceOutlined, MessageOutlined, PhoneOutlined } from '@ant-design/icons';
import { Button, FloatButton, Popover } from 'antd';
import { useTranslation } from 'react-i18next';
import { CHAT_CLOSE_HOUR, CHAT_OPEN_HOUR, SERVICE_PHONE } from '@/config/constants';
import { MenuLink } from './menu-link';

/** Hour of day in Asia/Shanghai, where the service desk works. */
export function shanghaiHour(now = new Date()): number {
  return Number(new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: 'Asia/Shanghai' }).format(now));
}

export function isChatOpen(now = new Date()): boolean {
  const hour = shanghaiHour(now);
  return hour >= CHAT_OPEN_HOUR && hour < CHAT_CLOSE_HOUR;
}

/** Online customer-service float: phone line and chat (08:00–22:00). */
export function ServiceFloat() {
  const { t } = useTranslation();
  const open = isChatOpen();
  const content = (
    <div className="fd-service">
      <div className="fd-service__row">
        <PhoneOutlined /> {t('service.phone', { phone: SERVICE_PHONE })}
      </div>
      <div className="fd-service__row fd-service__muted">{t('service.hours')}</div>
      <MenuLink path="/helpCenter/onlineCustomer">
        <Button type="primary" block icon={<MessageOutlined />} disabled={!open}>
          {open ? t('service.chat') : t('service.closed')}
        </Button>
      </MenuLink>
    </div>
  );
  return (
    <Popover content={content} title={t('service.title')} placement="leftBottom" trigger={['hover', 'click']}>
      <FloatButton icon={<CustomerServiceOutlined />} type="primary" style={{ insetInlineEnd: 28, insetBlockEnd: 36 }} aria-label={t('service.title')} />
    </Popover>
  );
}
