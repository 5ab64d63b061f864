import { BankOutlined, CheckCircleFilled, ReloadOutlined, RightOutlined } from '@ant-design/icons';
import { Button, Empty, Spin, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EnterpriseChoice } from '@/lib/enterprises';

export interface EnterpriseListProps {
  items: EnterpriseChoice[] | undefined;
  loading: boolean;
  failed: boolean;
  onRetry: () => void;
  onChoose: (enterprise: EnterpriseChoice) => void;
  /** The enterprise being selected right now (its row spins, the others wait). */
  choosing?: string;
}

/** The enterprises a person belongs to, by name; used by /selectNet and the enterprise switch. */
export function EnterpriseList({ items, loading, failed, onRetry, onChoose, choosing }: EnterpriseListProps) {
  const { t } = useTranslation();
  if (loading) {
    return (
      <div className="fd-enterprises__state">
        <Spin />
      </div>
    );
  }
  if (failed || !items) {
    return (
      <div className="fd-enterprises__state">
        <div>{t('enterprise.loadFailed')}</div>
        <Button icon={<ReloadOutlined />} onClick={onRetry}>
          {t('enterprise.retry')}
        </Button>
      </div>
    );
  }
  if (items.length === 0) return <Empty className="fd-enterprises__state" description={t('enterprise.none')} />;
  return (
    <ul className="fd-enterprises" data-testid="enterprise-list">
      {items.map((e) => (
        <li key={e.enterpriseId}>
          <button
            type="button"
            className={e.current ? 'is-current' : undefined}
            disabled={choosing !== undefined}
            onClick={() => onChoose(e)}
            data-testid="enterprise-option"
          >
            <BankOutlined className="fd-enterprises__icon" />
            <span className="fd-enterprises__name">{e.enterpriseName}</span>
            {e.current && (
              <Tag color="blue" icon={<CheckCircleFilled />}>
                {t('enterprise.current')}
              </Tag>
            )}
            {choosing === e.enterpriseId ? <Spin size="small" /> : <RightOutlined className="fd-enterprises__go" />}
          </button>
        </li>
      ))}
    </ul>
  );
}
