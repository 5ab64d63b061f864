import { Descriptions, Drawer, Spin, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { LoadErrorResult } from '@/components/load-error';
import { BLANK, cellText, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { useSession } from '../api/sessions';
import { codeLabel, durationText, kwh, SESSION_STATUS_COLORS, socText } from './labels';

/** One charging session: who, where, when, how much energy and what it cost, item by item. */
export function SessionDetailDrawer({ sessionId, onClose }: { sessionId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const session = useSession(sessionId);
  const s = session.data;
  const item = (label: string, value: unknown) => <Descriptions.Item label={label}>{cellText(value)}</Descriptions.Item>;
  return (
    <Drawer open={!!sessionId} size={640} title={t('charging:sessions.detailTitle')} onClose={onClose} destroyOnHidden>
      {session.error ? (
        <LoadErrorResult error={session.error} onRetry={() => void session.refetch()} />
      ) : (
        <Spin spinning={session.isLoading}>
          {s && (
            <Descriptions column={2} size="small" bordered data-testid="session-detail">
              {item(t('charging:sessions.sessionNo'), s.sessionNo)}
              <Descriptions.Item label={t('charging:fields.status')}>
                {s.status ? <Tag color={SESSION_STATUS_COLORS[s.status]}>{codeLabel(t, 'sessionStatus', s.status)}</Tag> : BLANK}
              </Descriptions.Item>
              {item(t('charging:fields.plateNumber'), s.plateNumber)}
              {item(t('charging:fields.cardNo'), s.cardNo)}
              {item(t('charging:fields.driver'), s.driverName)}
              {item(t('charging:fields.org'), s.orgName)}
              {item(t('charging:fields.station'), s.stationName)}
              {item(t('charging:fields.city'), s.cityName)}
              {item(t('charging:sessions.pile'), s.pileNo)}
              {item(t('charging:sessions.connector'), [s.connectorNo, codeLabel(t, 'connectorType', s.connectorType)].filter(Boolean).join(' / '))}
              {item(t('charging:sessions.startMethod'), codeLabel(t, 'startMethod', s.startMethod))}
              {item(t('charging:sessions.soc'), socText(s.startSocPercent, s.endSocPercent))}
              {item(t('charging:sessions.startTime'), formatTime(s.startTime))}
              {item(t('charging:sessions.endTime'), formatTime(s.endTime))}
              {item(t('charging:sessions.duration'), durationText(s.durationSeconds, t))}
              {item(t('charging:sessions.energy'), kwh(s.energyWh))}
              {item(t('charging:sessions.electricity'), yuan(s.electricityFen))}
              {item(t('charging:sessions.serviceFee'), yuan(s.serviceFeeFen))}
              {item(t('charging:sessions.parkingFee'), yuan(s.parkingFeeFen))}
              {item(t('charging:sessions.timeFee'), yuan(s.timeFeeFen))}
              {item(t('charging:sessions.fixedFee'), yuan(s.fixedFeeFen))}
              {item(t('charging:sessions.reservationFee'), yuan(s.reservationFeeFen))}
              {item(t('charging:sessions.discount'), yuan(s.discountFen))}
              {item(t('charging:sessions.totalFee'), yuan(s.totalFen))}
              {item(t('charging:sessions.refunded'), s.refundedFen ? yuan(s.refundedFen) : '')}
              {item(t('charging:sessions.stopReason'), s.stopReason)}
              {item(t('charging:sessions.settleTime'), formatTime(s.settleTime))}
              {item(t('charging:sessions.statementMonth'), s.statementMonth)}
            </Descriptions>
          )}
        </Spin>
      )}
    </Drawer>
  );
}
