import { Descriptions, Drawer, Spin, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { LoadErrorResult } from '@/components/load-error';
import { DETAIL_BLANK, detailText, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useSession } from '../api/sessions';
import { codeLabel, durationText, kwh, SESSION_STATUS_COLORS, socText } from './labels';

/** One charging session: who, where, when, how much energy and what it cost, item by item. */
export function SessionDetailDrawer({ sessionId, onClose }: { sessionId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const session = useSession(sessionId);
  const s = session.data;
  const item = (label: string, value: unknown) => <Descriptions.Item label={label}>{detailText(value)}</Descriptions.Item>;
  return (
    <Drawer open={!!sessionId} size={640} title={t('energy:sessions.detailTitle')} onClose={onClose} destroyOnHidden>
      {session.error ? (
        <LoadErrorResult error={session.error} onRetry={() => void session.refetch()} />
      ) : (
        <Spin spinning={session.isLoading}>
          {s && (
            <Descriptions column={2} size="small" bordered data-testid="session-detail">
              {item(t('energy:sessions.sessionNo'), s.sessionNo)}
              <Descriptions.Item label={t('energy:fields.status')}>
                {s.status ? <Tag color={SESSION_STATUS_COLORS[s.status]}>{codeLabel(t, 'sessionStatus', s.status)}</Tag> : DETAIL_BLANK}
              </Descriptions.Item>
              {item(t('energy:fields.plateNumber'), s.plateNumber)}
              {item(t('energy:fields.cardNo'), s.cardNo)}
              {item(t('energy:fields.driver'), s.driverName)}
              {item(t('energy:fields.org'), s.orgName)}
              {item(t('energy:fields.station'), s.stationName)}
              {item(t('energy:fields.city'), s.cityName)}
              {item(t('energy:sessions.pile'), s.pileNo)}
              {item(t('energy:sessions.connector'), [s.connectorNo, codeLabel(t, 'connectorType', s.connectorType)].filter(Boolean).join(' / '))}
              {item(t('energy:sessions.startMethod'), codeLabel(t, 'startMethod', s.startMethod))}
              {item(t('energy:sessions.soc'), socText(s.startSocPercent, s.endSocPercent))}
              {item(t('energy:sessions.startTime'), formatTime(s.startTime))}
              {item(t('energy:sessions.endTime'), formatTime(s.endTime))}
              {item(t('energy:sessions.duration'), durationText(s.durationSeconds, t))}
              {item(t('energy:sessions.energy'), kwh(s.energyWh))}
              {item(t('energy:sessions.electricity'), yuan(s.electricityFen))}
              {item(t('energy:sessions.serviceFee'), yuan(s.serviceFeeFen))}
              {item(t('energy:sessions.parkingFee'), yuan(s.parkingFeeFen))}
              {item(t('energy:sessions.timeFee'), yuan(s.timeFeeFen))}
              {item(t('energy:sessions.fixedFee'), yuan(s.fixedFeeFen))}
              {item(t('energy:sessions.reservationFee'), yuan(s.reservationFeeFen))}
              {item(t('energy:sessions.discount'), yuan(s.discountFen))}
              {item(t('energy:sessions.totalFee'), yuan(s.totalFen))}
              {item(t('energy:sessions.refunded'), s.refundedFen ? yuan(s.refundedFen) : '')}
              {item(t('energy:sessions.stopReason'), s.stopReason)}
              {item(t('energy:sessions.settleTime'), formatTime(s.settleTime))}
              {item(t('energy:sessions.statementMonth'), s.statementMonth)}
            </Descriptions>
          )}
        </Spin>
      )}
    </Drawer>
  );
}
