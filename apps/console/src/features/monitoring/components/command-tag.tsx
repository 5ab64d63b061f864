import { LoadingOutlined } from '@ant-design/icons';
import { Space, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { BLANK, formatTime } from '@/lib/format';
import { isTerminal, type LockCommand } from '../api/lock';
import { codeLabel, COMMAND_STATE_COLORS } from './status';

/** A command as 'lock · succeeded' (spinning while on its way), its failure reason on hover. */
export function CommandTag({ command, withTime = false }: { command?: LockCommand | null; withTime?: boolean }) {
  const { t } = useTranslation();
  if (!command) return BLANK;
  const tag = (
    <Tag color={COMMAND_STATE_COLORS[command.state ?? ''] ?? 'default'} icon={isTerminal(command.state) ? undefined : <LoadingOutlined />} data-testid="command-state">
      {codeLabel(t, 'lockAction', command.action)} · {codeLabel(t, 'commandState', command.state)}
    </Tag>
  );
  return (
    <Space size={4} direction={withTime ? 'vertical' : 'horizontal'}>
      {command.failureReason ? <Tooltip title={command.failureReason}>{tag}</Tooltip> : tag}
      {withTime && <span className="fd-muted">{formatTime(command.updatedAt)}</span>}
    </Space>
  );
}
