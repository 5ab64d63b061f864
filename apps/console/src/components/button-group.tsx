import { DownOutlined } from '@ant-design/icons';
import { Button, Dropdown, Space } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface GroupButton {
  key: string;
  label: ReactNode;
  onClick: () => void;
  disabled?: boolean;
  danger?: boolean;
}

export const MAX_VISIBLE_BUTTONS = 3;

/** Splits buttons: up to three shown; with more, two shown and the rest under 'More'. */
export function splitButtons<T>(buttons: T[], max = MAX_VISIBLE_BUTTONS): { visible: T[]; more: T[] } {
  if (buttons.length <= max) return { visible: buttons, more: [] };
  return { visible: buttons.slice(0, max - 1), more: buttons.slice(max - 1) };
}

/** Row actions: up to 3 buttons, the rest under 'More' (console spec §2). */
export function ButtonGroup({ buttons }: { buttons: GroupButton[] }) {
  const { t } = useTranslation();
  const { visible, more } = splitButtons(buttons);
  return (
    <Space size={4}>
      {visible.map((b) => (
        <Button key={b.key} type="link" size="small" danger={b.danger} disabled={b.disabled} onClick={b.onClick}>
          {b.label}
        </Button>
      ))}
      {more.length > 0 && (
        <Dropdown menu={{ items: more.map((b) => ({ key: b.key, label: b.label, disabled: b.disabled, danger: b.danger, onClick: b.onClick })) }}>
          <Button type="link" size="small">
            {t('common.more')} <DownOutlined />
          </Button>
        </Dropdown>
      )}
    </Space>
  );
}
