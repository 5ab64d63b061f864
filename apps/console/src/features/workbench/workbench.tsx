/** 工作台 (/dashboard): greeting, the menu's shortcuts, unread notices and the account's facts. */
import { RightOutlined } from '@ant-design/icons';
import { Avatar, Badge, Button, Card, Col, Empty, List, Row, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { APP_VERSION } from '@/config/constants';
import type { MenuItem } from '@/lib/access';
import { useAccess, useHasPermission } from '@/lib/auth';
import { useUnreadNotices } from '@/lib/counts';
import { formatTime } from '@/lib/format';
import { useOpenMenuPath } from '@/components/layout/menu-link';

/** Leaves of the menu, in menu order: the workbench's shortcuts. */
function leaves(items: MenuItem[]): MenuItem[] {
  return items.flatMap((i) => (i.children.length ? leaves(i.children) : [i]));
}

function greetingKey(hour: number): string {
  if (hour < 12) return 'workbench.morning';
  if (hour < 18) return 'workbench.afternoon';
  return 'workbench.evening';
}

/** 消息通知: the unread notices the bell counts, newest first, each opening its detail. */
function NoticeCard() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const mayRead = useHasPermission('as:message:pageInfo');
  const { notices, count, isLoading } = useUnreadNotices(mayRead);
  return (
    <Card
      title={
        <span>
          {t('route.notice')} <Badge count={count} overflowCount={99} size="small" />
        </span>
      }
      extra={mayRead && <Button type="link" size="small" onClick={() => navigate('/notice')}>{t('workbench.allNotices')}</Button>}
      variant="borderless"
      className="fd-side-card"
      data-testid="workbench-notices"
    >
      {notices.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={isLoading ? t('common.loading') : t('workbench.noNotices')} />
      ) : (
        <List
          size="small"
          dataSource={notices}
          renderItem={(n) => (
            <List.Item className="fd-workbench__notice" onClick={() => navigate(`/noticeDetails?id=${encodeURIComponent(n.id)}`)} extra={<span className="fd-muted">{formatTime(n.publishTime, '{m}-{d} {h}:{i}')}</span>}>
              <Badge status="processing" /> <span className="fd-workbench__notice-title">{n.title}</span>
            </List.Item>
          )}
        />
      )}
    </Card>
  );
}

export function Workbench() {
  const { t, i18n } = useTranslation();
  // Shortcuts open like the menu: pages on the needs-open list go to a new browser tab.
  const open = useOpenMenuPath();
  const { user, access } = useAccess();
  const groups = (access?.menu ?? []).filter((g) => g.children.length);
  const now = new Date();
  return (
    <div className="fd-workbench" data-testid="workbench">
      <Card variant="borderless" className="fd-welcome">
        <div className="fd-welcome__main">
          <Avatar size={56} src={user?.avatar || undefined}>{user?.name.slice(0, 1)}</Avatar>
          <div>
            <h2>{t(greetingKey(now.getHours()), { name: user?.name })}</h2>
            <div className="fd-welcome__meta">
              <span>{user?.enterpriseName}</span>
              {user?.roles.map((r) => <Tag key={r.id} color="blue">{r.name}</Tag>)}
            </div>
          </div>
        </div>
        <div className="fd-welcome__date">
          <div className="fd-welcome__day">{formatTime(now, '{y}-{m}-{d}')}</div>
          <div>{new Intl.DateTimeFormat(i18n.language, { weekday: 'long' }).format(now)}</div>
        </div>
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={16}>
          <Card title={t('workbench.shortcuts')} variant="borderless">
            {groups.length === 0 ? (
              <Empty description={t('workbench.noShortcuts')} />
            ) : (
              <div className="fd-shortcuts">
                {groups.map((g) => (
                  <section key={g.name}>
                    <h4>{t(g.title)}</h4>
                    <div className="fd-shortcuts__grid">
                      {leaves(g.children).slice(0, 8).map((item) => (
                        <button type="button" key={item.name} className="fd-shortcut" onClick={() => open(item.path)}>
                          <span>{t(item.title)}</span>
                          <RightOutlined />
                        </button>
                      ))}
                    </div>
                  </section>
                ))}
              </div>
            )}
          </Card>
        </Col>
        <Col xs={24} xl={8}>
          <NoticeCard />
          <Card title={t('workbench.about')} variant="borderless" className="fd-side-card">
            <List
              size="small"
              dataSource={[
                [t('workbench.enterprise'), user?.enterpriseName ?? '--'],
                [t('workbench.account'), user?.userName ?? '--'],
                [t('workbench.version'), APP_VERSION],
              ]}
              renderItem={([label, value]) => (
                <List.Item extra={value}>
                  <span className="fd-muted">{label}</span>
                </List.Item>
              )}
            />
          </Card>
        </Col>
      </Row>
    </div>
  );
}
