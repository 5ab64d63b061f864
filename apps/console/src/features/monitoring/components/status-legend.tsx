import { Checkbox } from 'antd';
import { useTranslation } from 'react-i18next';
import type { PositionStatus } from '../api/positions';
import type { StatusCounts } from './live-positions';
import { POSITION_STATUSES } from './live-positions';
import { STATUS_COLORS } from './status';

/** The map's legend: each status with its colour and count; unticking one hides those vehicles. */
export function StatusLegend({ counts, shown, onChange }: { counts: StatusCounts; shown: ReadonlySet<PositionStatus>; onChange: (next: Set<PositionStatus>) => void }) {
  const { t } = useTranslation();
  return (
    <div className="fd-monitor-legend" data-testid="status-legend">
      <div className="fd-monitor-legend__total">{t('monitoring:live.total', { count: counts.total })}</div>
      {POSITION_STATUSES.map((status) => (
        <Checkbox
          key={status}
          checked={shown.has(status)}
          onChange={(e) => {
            const next = new Set(shown);
            if (e.target.checked) next.add(status);
            else next.delete(status);
            onChange(next);
          }}
          data-testid={`legend-${status}`}
        >
          <span className="fd-monitor-legend__dot" style={{ background: STATUS_COLORS[status] }} />
          <span>{t(`monitoring:codes.status.${status}`)}</span>
          <span className="fd-monitor-legend__count">{counts[status]}</span>
        </Checkbox>
      ))}
    </div>
  );
}
