import { Button, Card, Descriptions, Empty, Result, Skeleton, Space, Tag } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { EChart } from '@/components/chart/echart';
import { ApiError, Code, isTransportFailure } from '@/lib/api-client';
import { DETAIL_BLANK, formatTime } from '@/lib/format';
import '../messages';
import '../monitoring.css';
import { bandOf, outOfBand, sharedTemperature, TEMPERATURE_KEY } from '../api/temperature';
import { temperatureChartOption } from './temperature-chart';

/** The consignee's page polls as often as the readings change (5-minute averages, latest fix). */
const REFRESH_MS = 60_000;

/**
 * The page a share link opens (`/share/temperature/:token`), without signing in:
 * one vehicle's latest temperatures, its bands and the last 24 hours, until
 * the link expires or is revoked.
 */
export default function SharedTemperaturePage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const shared = useQuery({
    queryKey: [...TEMPERATURE_KEY, 'shared', token],
    queryFn: () => sharedTemperature(token),
    refetchInterval: (query) => (query.state.error ? false : REFRESH_MS),
    retry: false,
  });
  const option = useMemo(
    () => (shared.data ? temperatureChartOption(shared.data.readings, shared.data.thresholds, t) : undefined),
    [shared.data, t],
  );

  if (shared.isPending) {
    return (
      <div className="fd-shared-temperature" data-testid="shared-temperature-loading">
        <Skeleton active paragraph={{ rows: 6 }} />
      </div>
    );
  }
  if (shared.error) {
    return <SharedFailure error={shared.error} onRetry={() => void shared.refetch()} />;
  }
  const data = shared.data;
  return (
    <div className="fd-shared-temperature" data-testid="shared-temperature">
      <Card title={t('monitoring:shared.title', { plate: data.plateNumber })}>
        <Descriptions size="small" column={{ xs: 1, sm: 2 }}>
          <Descriptions.Item label={t('monitoring:temperature.latestTime')}>{formatTime(data.latestTime) || DETAIL_BLANK}</Descriptions.Item>
          <Descriptions.Item label={t('monitoring:shared.validUntil')}>{formatTime(data.expiresAt)}</Descriptions.Item>
          <Descriptions.Item label={t('monitoring:temperature.latest')} span="filled">
            {data.latest.length === 0 ? (
              t('monitoring:shared.noReading')
            ) : (
              <Space size={4} wrap data-testid="shared-temperature-latest">
                {data.latest.map((p) => {
                  const band = bandOf(data.thresholds, p.probe);
                  return (
                    <Tag key={p.probe} color={outOfBand(p.celsius, band) ? 'error' : 'processing'}>
                      {t('monitoring:temperature.probe', { n: p.probe })} {p.celsius.toFixed(1)} ℃
                      {band ? ` (${band.minCelsius}~${band.maxCelsius} ℃)` : ''}
                    </Tag>
                  );
                })}
              </Space>
            )}
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <Card title={t('monitoring:shared.last24h')} className="fd-shared-temperature__chart">
        {data.readings.length === 0 || !option ? (
          <Empty description={t('monitoring:shared.noReading')} />
        ) : (
          <EChart option={option} style={{ height: 360 }} data-testid="shared-temperature-chart" />
        )}
      </Card>
    </div>
  );
}

/** Why the link shows nothing: gone for good, wait a moment, or try again. */
function SharedFailure({ error, onRetry }: { error: Error; onRetry: () => void }) {
  const { t } = useTranslation();
  const code = error instanceof ApiError ? error.code : Code.Network;
  if (code === Code.NotFound) {
    return <Result status="404" title={t('monitoring:shared.gone')} subTitle={t('monitoring:shared.goneHelp')} data-testid="shared-temperature-gone" />;
  }
  const busy = code === Code.RateLimited;
  const wait = error instanceof ApiError ? error.retryAfterSeconds : undefined;
  return (
    <Result
      status="warning"
      data-testid="shared-temperature-failed"
      title={busy ? t('monitoring:shared.busy', { seconds: wait ?? 60 }) : t('monitoring:shared.failed')}
      subTitle={!busy && error instanceof ApiError && !isTransportFailure(error) ? error.message : undefined}
      extra={
        <Button type="primary" onClick={onRetry}>
          {t('monitoring:shared.retry')}
        </Button>
      }
    />
  );
}
