import { AimOutlined, CloseOutlined, HistoryOutlined } from '@ant-design/icons';
import { Button, Descriptions, Space, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { DETAIL_BLANK, formatTime, relativeTime } from '@/lib/format';
import type { LatestPosition } from '../api/positions';
import { effectiveStatus } from './live-positions';
import { STATUS_COLORS } from './status';

export interface VehicleCardProps {
  vehicle: LatestPosition;
  now: number;
  following: boolean;
  onFollow: (on: boolean) => void;
  onTrack: () => void;
  onClose: () => void;
}

/** The selected vehicle: status, speed, SOC, temperatures, driver and the time of its last fix. */
export function VehicleCard({ vehicle, now, following, onFollow, onTrack, onClose }: VehicleCardProps) {
  const { t } = useTranslation();
  const status = effectiveStatus(vehicle, now);
  const ago = relativeTime(vehicle.fixTime, now);
  const temperatures = vehicle.temperatures.length ? vehicle.temperatures.map((p) => `${t('monitoring:live.probe', { n: p.probe })} ${p.celsius.toFixed(1)}℃`).join('  ') : DETAIL_BLANK;
  return (
    <div className="fd-monitor-card" data-testid="vehicle-card">
      <div className="fd-monitor-card__head">
        <Space>
          <strong className="fd-monitor-card__plate">{vehicle.plateNumber}</strong>
          <Tag color={STATUS_COLORS[status]}>{t(`monitoring:codes.status.${status}`)}</Tag>
        </Space>
        <Button type="text" size="small" icon={<CloseOutlined />} onClick={onClose} aria-label={t('common.close')} />
      </div>
      <Descriptions size="small" column={1} colon={false} labelStyle={{ width: 80 }}>
        <Descriptions.Item label={t('monitoring:live.speed')}>{`${vehicle.speedKmh.toFixed(1)} km/h`}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.soc')}>{vehicle.soc === null || vehicle.soc === undefined ? DETAIL_BLANK : `${Math.round(vehicle.soc)}%`}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.temperature')}>{temperatures}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.driver')}>{vehicle.driverName || DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.org')}>{vehicle.orgName || DETAIL_BLANK}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.mileage')}>{vehicle.mileageKm === null || vehicle.mileageKm === undefined ? DETAIL_BLANK : `${vehicle.mileageKm.toFixed(1)} km`}</Descriptions.Item>
        <Descriptions.Item label={t('monitoring:live.fixTime')}>
          <Tooltip title={formatTime(vehicle.fixTime)}>
            <span data-testid="vehicle-fix-time">
              {formatTime(vehicle.fixTime)} ({t(`monitoring:live.ago.${ago.unit}`, { count: ago.count })})
            </span>
          </Tooltip>
        </Descriptions.Item>
      </Descriptions>
      <Space className="fd-monitor-card__actions">
        <Button size="small" type={following ? 'primary' : 'default'} icon={<AimOutlined />} onClick={() => onFollow(!following)} data-testid="vehicle-follow">
          {following ? t('monitoring:live.following') : t('monitoring:live.follow')}
        </Button>
        <Button size="small" icon={<HistoryOutlined />} onClick={onTrack} data-testid="vehicle-track">
          {t('monitoring:live.track')}
        </Button>
      </Space>
    </div>
  );
}
