import { BugOutlined } from '@ant-design/icons';
import { Badge, Button, Modal, Table, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { clearErrorLog, useErrorLog } from '@/lib/error-log';
import { formatTime } from '@/lib/format';

/** Navbar entry and dialog listing captured client errors; hidden while there are none. */
export function ErrorLogButton() {
  const { t } = useTranslation();
  const entries = useErrorLog();
  const [open, setOpen] = useState(false);
  if (!entries.length) return null;
  return (
    <>
      <Tooltip title={t('errorLog.title')}>
        <Badge count={entries.length} size="small" offset={[-4, 4]}>
          <Button type="text" danger className="fd-nav__icon" icon={<BugOutlined />} aria-label={t('errorLog.title')} onClick={() => setOpen(true)} />
        </Badge>
      </Tooltip>
      <Modal
        title={t('errorLog.title')}
        open={open}
        width="80%"
        onCancel={() => setOpen(false)}
        footer={[
          <Button key="clear" onClick={() => { clearErrorLog(); setOpen(false); }}>{t('errorLog.clear')}</Button>,
          <Button key="close" type="primary" onClick={() => setOpen(false)}>{t('common.close')}</Button>,
        ]}
      >
        <Table
          rowKey={(e) => `${e.time}-${e.message}`}
          size="small"
          pagination={false}
          dataSource={entries}
          scroll={{ y: 420 }}
          columns={[
            { title: t('errorLog.time'), dataIndex: 'time', width: 170, render: (v: number) => formatTime(v) },
            { title: t('errorLog.message'), dataIndex: 'message', width: 240 },
            { title: t('errorLog.info'), dataIndex: 'info', width: 240, render: (v?: string) => (v ? <pre className="fd-stack">{v.trim()}</pre> : '--') },
            { title: t('errorLog.url'), dataIndex: 'url', width: 220, ellipsis: true },
            { title: t('errorLog.stack'), dataIndex: 'stack', render: (v?: string) => <pre className="fd-stack">{v ?? '--'}</pre> },
          ]}
        />
      </Modal>
    </>
  );
}
