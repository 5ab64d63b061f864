import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { InputNumber, Table, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import '@/features/risk/messages';
import { toastSuccess } from '@/lib/notify';
import { getSafetyWeights, SAFETY_KEY, SAFETY_WEIGHTS_KEY, updateSafetyWeights, type AlarmType, type SafetyWeight } from '../api/safety';

export interface SafetyWeightsDialogProps {
  open: boolean;
  onClose: () => void;
}

/** The enterprise's weight per alarm type (as:alarm:rule): what one alarm per 100 km takes off a score; changed weights are saved and audited. */
export function SafetyWeightsDialog({ open, onClose }: SafetyWeightsDialogProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const weights = useQuery({ queryKey: SAFETY_WEIGHTS_KEY, queryFn: getSafetyWeights, enabled: open });
  const [draft, setDraft] = useState<Partial<Record<AlarmType, number>>>({});
  useEffect(() => {
    if (open) setDraft({});
  }, [open]);
  const save = useMutation({
    mutationFn: () =>
      updateSafetyWeights({ weights: Object.entries(draft).map(([alarmType, weight]) => ({ alarmType: alarmType as AlarmType, weight: weight ?? 0 })) }),
    onSuccess: () => {
      toastSuccess(t('reports:safety.weights.saved'));
      void client.invalidateQueries({ queryKey: SAFETY_KEY });
      onClose();
    },
  });
  const rows = (weights.data?.weights ?? []).filter((w): w is SafetyWeight & { alarmType: AlarmType } => !!w.alarmType);
  return (
    <AppDialog
      open={open}
      width={560}
      title={t('reports:safety.weights.title')}
      onCancel={onClose}
      onConfirm={() => (Object.keys(draft).length ? save.mutateAsync() : onClose())}
      destroyOnHidden
    >
      <p>{t('reports:safety.weights.hint')}</p>
      <Table<SafetyWeight & { alarmType: AlarmType }>
        data-testid="safety-weights"
        size="small"
        rowKey="alarmType"
        loading={weights.isFetching}
        pagination={false}
        scroll={{ y: 420 }}
        dataSource={rows}
        columns={[
          { title: t('reports:safety.fields.alarmType'), dataIndex: 'alarmType', render: (_, w) => t(`risk:type.${w.alarmType}`) },
          {
            title: t('reports:safety.fields.weight'),
            dataIndex: 'weight',
            width: 200,
            render: (_, w) => (
              <>
                <InputNumber
                  size="small"
                  min={0}
                  max={100}
                  step={0.5}
                  precision={2}
                  value={draft[w.alarmType] ?? w.weight}
                  onChange={(value) => setDraft((d) => ({ ...d, [w.alarmType]: value ?? 0 }))}
                  aria-label={t(`risk:type.${w.alarmType}`)}
                />
                {w.customized && <Tag style={{ marginLeft: 8 }}>{t('reports:safety.weights.customized')}</Tag>}
              </>
            ),
          },
        ]}
      />
    </AppDialog>
  );
}
