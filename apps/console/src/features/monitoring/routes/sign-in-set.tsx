import { PlusOutlined } from '@ant-design/icons';
import { Button, Space, Tabs, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import '../messages';
import '../monitoring.css';
import { FENCE_LIST_KEY, fenceQuery, listFences, listSignIns, SIGN_INS_KEY, signInQuery, useFenceOptions, type Geofence, type GeofenceQuery, type SignIn, type SignInQuery } from '../api/geofences';
import { FenceNav } from '../components/fence-nav';
import { PATHS, pathWith } from '../paths';

const pointQuery = fenceQuery('signIn');
const POINTS_KEY = [...FENCE_LIST_KEY, 'signIn'];

function SignInPoints({ onRecords }: { onRecords: (id: string) => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const fields = useMemo<FilterField[]>(() => [{ prop: 'name', label: t('monitoring:signIn.pointName'), type: 'input', width: 200, maxlength: 50 }], [t]);
  const list = useListPage<Geofence, GeofenceQuery>({ fields, queryKey: POINTS_KEY, toQuery: pointQuery, fetch: listFences });
  const columns: ListColumn<Geofence>[] = [
    { prop: 'name', label: t('monitoring:signIn.pointName'), width: 180 },
    { prop: 'radiusM', label: t('monitoring:fence.radius'), width: 100, align: 'right', formatter: (row) => (row.radiusM ? `${row.radiusM} m` : '') },
    { prop: 'orgName', label: t('monitoring:fields.org'), width: 160 },
    { prop: 'vehicleIds', label: t('monitoring:fence.vehicles'), width: 110, formatter: (row) => (row.vehicleIds.length ? t('monitoring:fence.vehicleCount', { count: row.vehicleIds.length }) : t('monitoring:fence.allVehicles')) },
    { prop: 'enabled', label: t('monitoring:fence.enabled'), width: 90, render: (row) => <Tag color={row.enabled ? 'success' : 'default'}>{t(row.enabled ? 'monitoring:fence.on' : 'monitoring:fence.off')}</Tag> },
    { prop: 'insideCount', label: t('monitoring:fence.inside'), width: 100, align: 'right' },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 180,
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => navigate(pathWith(PATHS.fenceDetail, { id: row.id }))}>
            {t('monitoring:fence.detail')}
          </Button>
          <Button type="link" size="small" onClick={() => onRecords(row.id)}>
            {t('monitoring:signIn.records')}
          </Button>
        </Space>
      ),
    },
  ];
  return (
    <ListPage<Geofence>
      testId="sign-in-points"
      {...list.listProps}
      toolbar={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(pathWith(PATHS.addFence, { purpose: 'signIn' }))} data-testid="sign-in-add">
          {t('monitoring:signIn.add')}
        </Button>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, ...list.tableProps }}
    />
  );
}

function SignInRecords() {
  const { t } = useTranslation();
  const points = useFenceOptions('signIn');
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'geofenceIds', label: t('monitoring:signIn.point'), type: 'select', width: 220, multiple: true, options: points.data ?? [] },
      { prop: 'plateNumbers', label: t('monitoring:fields.plateNumber'), type: 'batchInput', width: 220 },
      { prop: 'time', label: t('monitoring:signIn.time'), type: 'datetimerange', keys: { start: 'from', end: 'to' } },
    ],
    [t, points.data],
  );
  const list = useListPage<SignIn, SignInQuery>({ fields, queryKey: SIGN_INS_KEY, toQuery: signInQuery, fetch: listSignIns });
  const columns: ListColumn<SignIn>[] = [
    { prop: 'time', label: t('monitoring:signIn.time'), width: 170, formatter: (row) => formatTime(row.time) },
    { prop: 'pointName', label: t('monitoring:signIn.point'), width: 180 },
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 140 },
  ];
  return (
    <ListPage<SignIn>
      testId="sign-in-records"
      {...list.listProps}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, ...list.tableProps }}
    />
  );
}

/** 签到设置 (singInSetPage): sign-in points (circle fences for signing in) and their sign-in records. */
export default function SignInSetPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'records' ? 'records' : 'points';
  return (
    <div className="fd-monitor-page">
      <FenceNav />
      <Tabs
        activeKey={tab}
        onChange={(key) => setParams(key === 'records' ? { tab: 'records' } : {})}
        items={[
          { key: 'points', label: t('monitoring:signIn.points'), children: tab === 'points' ? <SignInPoints onRecords={(id) => setParams({ tab: 'records', geofenceIds: id })} /> : null },
          { key: 'records', label: t('monitoring:signIn.records'), children: tab === 'records' ? <SignInRecords /> : null },
        ]}
      />
    </div>
  );
}
