import { Alert, Button, DatePicker, Form, Input, Popconfirm, Space, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { formatTime } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import '../monitoring.css';
import {
  expiryAllowed,
  listTemperatureShares,
  shareLink,
  shareState,
  TEMPERATURE_SHARES_KEY,
  temperatureShareQuery,
  useCreateShare,
  useRevokeShare,
  type TemperatureShare,
  type TemperatureShareQuery,
} from '../api/temperature';
import { PATHS } from '../paths';
import { VehiclePickOne } from '../components/vehicle-select';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

const STATE_COLORS = { active: 'success', expired: 'default', revoked: 'warning' } as const;

/** 授权记录 (authorizationRecord): consignee links to one vehicle's temperatures — create (the link shows once), list, revoke. */
export default function TemperatureAuthorizationRecordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const vehicleId = params.get('vehicleId') || undefined;
  const plate = params.get('plate') || undefined;
  const [creating, setCreating] = useState(false);
  const revoke = useRevokeShare();
  const list = useListPage<TemperatureShare, TemperatureShareQuery>({
    fields: [],
    queryKey: [...TEMPERATURE_SHARES_KEY, vehicleId ?? ''],
    toQuery: temperatureShareQuery(vehicleId),
    fetch: listTemperatureShares,
  });
  const columns: ListColumn<TemperatureShare>[] = [
    { prop: 'plateNumber', label: t('monitoring:fields.plateNumber'), width: 120, fixed: 'left' },
    { prop: 'consigneeName', label: t('monitoring:temperature.consigneeName'), width: 120 },
    { prop: 'consigneePhone', label: t('monitoring:temperature.consigneePhone'), width: 140 },
    { prop: 'expiresAt', label: t('monitoring:temperature.expiresAt'), width: 160, formatter: (row) => formatTime(row.expiresAt) },
    { prop: 'createdAt', label: t('monitoring:temperature.createdAt'), width: 160, formatter: (row) => formatTime(row.createdAt) },
    {
      prop: 'revokedAt',
      label: t('monitoring:temperature.state'),
      width: 100,
      render: (row) => {
        const state = shareState(row);
        return <Tag color={STATE_COLORS[state]}>{t(`monitoring:temperature.states.${state}`)}</Tag>;
      },
    },
    {
      key: 'actions',
      label: t('common.actions'),
      width: 100,
      fixed: 'right',
      render: (row) =>
        shareState(row) === 'active' ? (
          <Popconfirm
            title={t('monitoring:temperature.revokeConfirm')}
            onConfirm={async () => {
              await revoke.mutateAsync(row.id);
              toastSuccess(t('monitoring:temperature.revoked'));
            }}
          >
            <Button type="link" size="small" danger data-testid="share-revoke">
              {t('monitoring:temperature.revoke')}
            </Button>
          </Popconfirm>
        ) : null,
    },
  ];
  return (
    <ListPage<TemperatureShare>
      testId="temperature-share-list"
      {...list.listProps}
      toolbar={
        <Space>
          <Button type="primary" onClick={() => setCreating(true)} data-testid="share-create">
            {t('monitoring:temperature.createShare')}
          </Button>
          <Button onClick={() => navigate(PATHS.temperatureMonitor)}>{t('monitoring:common.back')}</Button>
        </Space>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1000, ...list.tableProps }}
    >
      <ShareDialog open={creating} vehicleId={vehicleId} plate={plate} onClose={() => setCreating(false)} />
    </ListPage>
  );
}

interface ShareForm {
  vehicleId: string;
  consigneeName: string;
  consigneePhone: string;
  expiresAt: Dayjs;
}

function ShareDialog({ open, vehicleId, plate, onClose }: { open: boolean; vehicleId?: string; plate?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ShareForm>();
  const create = useCreateShare();
  const key = useRef(newIdempotencyKey());
  const [link, setLink] = useState('');
  useEffect(() => {
    if (!open) return;
    key.current = newIdempotencyKey();
    setLink('');
    form.resetFields();
    form.setFieldsValue({ vehicleId, expiresAt: dayjs().add(3, 'day') });
  }, [open, form, vehicleId]);
  const submit = async () => {
    if (link) {
      onClose();
      return;
    }
    const values = await form.validateFields();
    const answer = await create.mutateAsync({
      vehicleId: values.vehicleId,
      consigneeName: values.consigneeName.trim(),
      consigneePhone: values.consigneePhone.trim(),
      expiresAt: values.expiresAt.format(),
      idempotencyKey: key.current,
    });
    // Stays open: the link shows only now.
    setLink(shareLink(window.location.origin, answer.token));
  };
  return (
    <AppDialog open={open} width={560} title={t('monitoring:temperature.createShare')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      {link ? (
        <div data-testid="share-link">
          <Alert type="success" showIcon title={t('monitoring:temperature.linkHelp')} style={{ marginBottom: 12 }} />
          <Typography.Paragraph copyable={{ text: link, tooltips: [t('monitoring:temperature.copy'), t('monitoring:temperature.copied')] }} code>
            {link}
          </Typography.Paragraph>
        </div>
      ) : (
        <Form form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap name="temperatureShare">
          {vehicleId ? (
            <>
              <Form.Item label={t('monitoring:temperature.vehicle')}>
                <Input disabled value={plate} />
              </Form.Item>
              <Form.Item name="vehicleId" hidden>
                <Input />
              </Form.Item>
            </>
          ) : (
            <Form.Item name="vehicleId" label={t('monitoring:temperature.vehicle')} rules={[{ required: true, message: t('monitoring:temperature.required') }]}>
              <PickVehicle />
            </Form.Item>
          )}
          <Form.Item name="consigneeName" label={t('monitoring:temperature.consigneeName')} rules={[{ required: true, whitespace: true, max: 50, message: t('monitoring:temperature.required') }]}>
            <Input maxLength={50} />
          </Form.Item>
          <Form.Item name="consigneePhone" label={t('monitoring:temperature.consigneePhone')} rules={[{ required: true, pattern: /^[+\d][\d -]{4,19}$/, message: t('monitoring:temperature.required') }]}>
            <Input maxLength={20} />
          </Form.Item>
          <Form.Item name="expiresAt" label={t('monitoring:temperature.expiresAt')} extra={t('monitoring:temperature.maxShareDays')} rules={[{ required: true, message: t('monitoring:temperature.required') }]}>
            <DatePicker showTime style={{ width: '100%' }} disabledDate={(day) => !expiryAllowed(day.endOf('day')) && !expiryAllowed(day)} />
          </Form.Item>
        </Form>
      )}
    </AppDialog>
  );
}

/** One vehicle as a form value (its id). */
function PickVehicle({ value, onChange }: { value?: string; onChange?: (id: string | undefined) => void }) {
  return <VehiclePickOne value={value} onChange={(option) => onChange?.(option?.value)} />;
}
