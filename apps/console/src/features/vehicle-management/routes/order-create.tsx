import { Button, Form, Space } from 'antd';
import { useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type {
  FormField,
  FormValues,
} from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { ModuleCard } from '@/components/module-card';
import { api } from '@/lib/api-client';
import { codeOptions } from '@/lib/codes';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import { useCreateOrder, useRepairConfig } from '../api/repairs';
import { REPAIR_KINDS, REPAIR_PATHS } from '../components/repair-labels';
import { BackButton } from '../components/repair-parts';

const P = 'vehicleManagement:repair';

/**
 * 新建维修单 (orderCreate, as:maintain): sends a vehicle to one of the
 * configuration's enabled shops; the order starts 待报价. One
 * Idempotency-Key per opening, so a retried submit creates one order.
 */
export default function OrderCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [form] = Form.useForm();
  const config = useRepairConfig();
  const create = useCreateOrder();
  const key = useRef(crypto.randomUUID());
  const m = (k: string) => t(`${P}.${k}`);

  const fields = useMemo<FormField[]>(
    () => [
      {
        kind: 'select',
        name: 'vehicleId',
        label: t(`${P}.vehicle`),
        required: true,
        span: 12,
        loadOptions: {
          key: ['pickers', 'vehicles', 'repair'],
          load: async () =>
            (
              await api.get('/api/v1/pickers/vehicles', {
                params: { query: {} },
              })
            ).map((v) => ({ value: v.id, label: v.plateNumber })),
        },
      },
      {
        kind: 'select',
        name: 'kind',
        label: t(`${P}.kind`),
        required: true,
        span: 12,
        options: codeOptions(t, `${P}.kinds`, REPAIR_KINDS),
      },
      {
        kind: 'select',
        name: 'shopId',
        label: t(`${P}.shop`),
        required: true,
        span: 12,
        options: (config.data?.suppliers ?? [])
          .filter((s) => s.enabled)
          .map((s) => ({ value: s.id, label: s.name })),
      },
      {
        kind: 'number',
        name: 'odometerKm',
        label: t(`${P}.odometer`),
        min: 0,
        max: 10_000_000,
        precision: 0,
        unit: t('vehicleManagement:common.km'),
        span: 12,
      },
      {
        kind: 'date-time',
        name: 'appointmentTime',
        label: t(`${P}.appointmentTime`),
        span: 12,
      },
      {
        kind: 'text',
        name: 'contactName',
        label: t(`${P}.contactName`),
        maxLength: 50,
        span: 12,
      },
      {
        kind: 'text',
        name: 'contactPhone',
        label: t(`${P}.contactPhone`),
        maxLength: 20,
        span: 12,
      },
      {
        kind: 'textarea',
        name: 'faultDescription',
        label: t(`${P}.fault`),
        required: true,
        maxLength: 1000,
        span: 24,
      },
    ],
    [t, config.data],
  );

  const submit = async () => {
    await form.validateFields();
    const values = toSubmitValues(
      fields,
      form.getFieldsValue(true) as FormValues,
    );
    const order = await create.mutateAsync({
      idempotencyKey: key.current,
      body: {
        vehicleId: String(values.vehicleId ?? ''),
        kind: values.kind as never,
        shopId: String(values.shopId ?? ''),
        odometerM: Math.round(Number(values.odometerKm ?? 0) * 1000),
        appointmentTime: String(values.appointmentTime ?? ''),
        contactName: String(values.contactName ?? ''),
        contactPhone: String(values.contactPhone ?? ''),
        faultDescription: String(values.faultDescription ?? ''),
        driverId: '',
        faultImages: [],
        accidentId: '',
      },
    });
    toastSuccess(m('created'));
    navigate(`${REPAIR_PATHS.detail}?id=${encodeURIComponent(order.id)}`);
  };

  return (
    <ModuleCard
      title={m('create')}
      extra={<BackButton to={REPAIR_PATHS.orders} />}
    >
      <DynamicForm
        form={form}
        fields={fields}
        defaultSpan={12}
        name="repair-create"
      />
      <Space>
        <Button
          type="primary"
          loading={create.isPending}
          onClick={() => void submit()}
          data-testid="repair-create-submit"
        >
          {t('dialog.confirm')}
        </Button>
        <Button onClick={() => navigate(REPAIR_PATHS.orders)}>
          {t('dialog.cancel')}
        </Button>
      </Space>
    </ModuleCard>
  );
}
