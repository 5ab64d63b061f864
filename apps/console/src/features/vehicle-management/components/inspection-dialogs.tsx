/** 登记年检 on the dynamic form with its photos through the file-attachment dialog, and a vehicle's inspection drawer with its history. */
import { PaperClipOutlined } from '@ant-design/icons';
import {
  Button,
  Descriptions,
  Drawer,
  Empty,
  Form,
  Space,
  Spin,
  Table,
  Tag,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type {
  FormField,
  FormValues,
} from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { AttachmentDialog } from '@/components/file-attachment/attachment-dialog';
import { LoadErrorBanner } from '@/components/load-error';
import type { FileItem } from '@/components/upload/upload-control';
import { codeLabel } from '@/lib/codes';
import { DOCUMENT_ATTACHMENTS } from '@/lib/files';
import { detailText, formatTime, formatTimeIn } from '@/lib/format';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import {
  useInspectionDetail,
  useRecordInspection,
  type Inspection,
  type InspectionRecord,
  type RecordForm,
} from '../api/inspections';
import {
  INSPECTION_CLASSES,
  INSPECTION_COLORS,
  INSPECTION_RESULTS,
  RESULT_COLORS,
  type InspectionClass,
  type InspectionResult,
} from './inspection-labels';
import { kmText, metresOf } from './labels';

type T = (key: string, options?: Record<string, unknown>) => string;

/** Inspection days are Beijing days, shown as such wherever the browser is. */
const day = (v: string | undefined) => formatTimeIn(v, '{y}-{m}-{d}');
const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** The record's fields; the class starts as the vehicle's. */
export function recordFields(
  t: T,
  inspection: Inspection | undefined,
): FormField[] {
  const r = (key: string) => t(`vehicleManagement:inspection.${key}`);
  return [
    {
      kind: 'date',
      name: 'inspectionTime',
      label: r('inspectionTime'),
      required: true,
      initialValue: dayjs(),
      rules: [
        {
          validator: (_, value: unknown) =>
            dayjs.isDayjs(value) && value.isAfter(dayjs(), 'day')
              ? Promise.reject(new Error(r('futureTime')))
              : Promise.resolve(),
        },
      ],
      span: 12,
    },
    {
      kind: 'radio',
      name: 'result',
      label: r('result'),
      required: true,
      options: INSPECTION_RESULTS.map((v) => ({
        value: v,
        label: r(`results.${v}`),
      })),
      initialValue: 'PASSED' satisfies InspectionResult,
      span: 12,
    },
    {
      kind: 'text',
      name: 'stationName',
      label: r('station'),
      maxLength: 64,
      span: 12,
    },
    {
      kind: 'number',
      name: 'odometerKm',
      label: r('odometer'),
      min: 0,
      max: 10_000_000,
      precision: 1,
      unit: t('vehicleManagement:common.km'),
      span: 12,
    },
    { kind: 'money-fen', name: 'costFen', label: r('cost'), span: 12 },
    {
      kind: 'select',
      name: 'inspectionClass',
      label: r('class'),
      options: INSPECTION_CLASSES.map((v) => ({
        value: v,
        label: r(`classes.${v}`),
      })),
      initialValue: inspection?.inspectionClass ?? undefined,
      span: 12,
    },
    {
      kind: 'date',
      name: 'expireTime',
      label: r('stamp'),
      placeholder: r('stampHint'),
      hidden: (v) => v.result === 'FAILED',
      span: 12,
    },
    {
      kind: 'textarea',
      name: 'remark',
      label: r('remark'),
      maxLength: 200,
      span: 24,
    },
  ];
}

/** What is sent: km typed become metres, the cost is fen already, the photos their keys. */
export function recordBody(
  submitted: FormValues,
  images: FileItem[],
): RecordForm {
  return {
    inspectionTime: text(submitted.inspectionTime).slice(0, 10),
    result: submitted.result as InspectionResult,
    stationName: text(submitted.stationName),
    odometerM: metresOf(submitted.odometerKm),
    costFen: Number(submitted.costFen ?? 0) || 0,
    expireTime:
      submitted.result === 'FAILED'
        ? ''
        : text(submitted.expireTime).slice(0, 10),
    inspectionClass:
      (submitted.inspectionClass as InspectionClass | undefined) ?? null,
    images: images
      .filter((f) => !!f.saveUrl)
      .map((f) => ({
        key: f.saveUrl as string,
        name: f.name,
        contentType: '',
        sizeBytes: 0,
      })),
    remark: text(submitted.remark),
  };
}

export interface RecordDialogProps {
  inspection?: Inspection;
  onClose: () => void;
}

export function RecordDialog({ inspection, onClose }: RecordDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const fields = useMemo(() => recordFields(t, inspection), [t, inspection]);
  const [images, setImages] = useState<FileItem[]>([]);
  const [attaching, setAttaching] = useState(false);
  const record = useRecordInspection();
  const r = (key: string) => t(`vehicleManagement:inspection.${key}`);

  const close = () => {
    setImages([]);
    onClose();
  };
  const confirm = async () => {
    if (!inspection) return;
    await form.validateFields();
    const raw = form.getFieldsValue(true) as FormValues;
    const answer = await record.mutateAsync({
      vehicleId: inspection.vehicleId,
      body: recordBody(toSubmitValues(fields, raw), images),
    });
    toastSuccess(
      t('vehicleManagement:inspection.recorded', {
        due: day(answer.inspection.expireTime) || '--',
      }),
    );
    close();
  };

  return (
    <AppDialog
      open={!!inspection}
      width={760}
      title={`${r('record')} · ${inspection?.plateNumber ?? ''}`}
      onCancel={close}
      onConfirm={confirm}
      destroyOnHidden
    >
      <DynamicForm form={form} fields={fields} name="inspection-record" />
      <Space>
        <Button
          icon={<PaperClipOutlined />}
          onClick={() => setAttaching(true)}
          data-testid="inspection-images"
        >
          {r('images')}
        </Button>
        <Typography.Text type="secondary" data-testid="inspection-image-count">
          {t('vehicleManagement:inspection.imageCount', {
            count: images.length,
          })}
        </Typography.Text>
      </Space>
      <AttachmentDialog
        open={attaching}
        purpose="document"
        title={r('images')}
        value={images}
        limit={DOCUMENT_ATTACHMENTS.limit}
        types={[...DOCUMENT_ATTACHMENTS.types]}
        maxSizeMb={DOCUMENT_ATTACHMENTS.maxSizeMb}
        pictureCard
        onCancel={() => setAttaching(false)}
        onConfirm={(files) => {
          setImages(files);
          setAttaching(false);
        }}
      />
    </AppDialog>
  );
}

function History({ records }: { records: InspectionRecord[] }) {
  const { t } = useTranslation();
  const r = (key: string) => t(`vehicleManagement:inspection.${key}`);
  if (records.length === 0) return <Empty description={r('noHistory')} />;
  return (
    <Table
      size="small"
      rowKey="id"
      pagination={false}
      dataSource={records}
      data-testid="inspection-history"
      columns={[
        {
          title: r('inspectionTime'),
          dataIndex: 'inspectionTime',
          render: (v: string) => day(v),
        },
        {
          title: r('result'),
          dataIndex: 'result',
          render: (v: InspectionResult | null) =>
            v ? (
              <Tag color={RESULT_COLORS[v]}>
                {codeLabel(t, 'vehicleManagement:inspection.results', v)}
              </Tag>
            ) : (
              '--'
            ),
        },
        {
          title: r('station'),
          dataIndex: 'stationName',
          render: (v: string) => detailText(v),
        },
        {
          title: r('odometer'),
          dataIndex: 'odometerM',
          align: 'right',
          render: (v: number) => kmText(v) || '--',
        },
        {
          title: r('cost'),
          dataIndex: 'costFen',
          align: 'right',
          render: (v: number) => yuan(v),
        },
        {
          title: r('dueChange'),
          key: 'due',
          render: (_: unknown, row: InspectionRecord) =>
            `${day(row.previousExpireTime) || '--'} → ${day(row.expireTime) || '--'}`,
        },
        {
          title: r('images'),
          dataIndex: 'images',
          render: (v: InspectionRecord['images']) =>
            v.length ? v.map((f) => f.name).join('，') : '--',
        },
        {
          title: r('operator'),
          dataIndex: 'operatorName',
          render: (v: string) => detailText(v),
        },
      ]}
    />
  );
}

/** A vehicle's inspection state, its inspections newest first and its operation log. */
export function InspectionDrawer({
  vehicleId,
  onClose,
}: {
  vehicleId?: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const detail = useInspectionDetail(vehicleId);
  const state = detail.data?.inspection;
  const r = (key: string) => t(`vehicleManagement:inspection.${key}`);
  return (
    <Drawer
      open={!!vehicleId}
      size={960}
      title={r('detailTitle')}
      onClose={onClose}
      destroyOnHidden
    >
      <LoadErrorBanner
        error={detail.error}
        onRetry={() => void detail.refetch()}
      />
      {state && detail.data ? (
        <div data-testid="inspection-detail">
          <Descriptions size="small" column={3} style={{ marginBottom: 16 }}>
            <Descriptions.Item label={r('plateNumber')}>
              {state.plateNumber}
            </Descriptions.Item>
            <Descriptions.Item label={r('class')}>
              {detailText(
                codeLabel(
                  t,
                  'vehicleManagement:inspection.classes',
                  state.inspectionClass,
                ),
              )}
            </Descriptions.Item>
            <Descriptions.Item label={r('status')}>
              {state.status ? (
                <Tag color={INSPECTION_COLORS[state.status]}>
                  {codeLabel(
                    t,
                    'vehicleManagement:inspection.statuses',
                    state.status,
                  )}
                </Tag>
              ) : (
                '-'
              )}
            </Descriptions.Item>
            <Descriptions.Item label={r('registerTime')}>
              {detailText(day(state.registerTime))}
            </Descriptions.Item>
            <Descriptions.Item label={r('expireTime')}>
              {detailText(day(state.expireTime))}
            </Descriptions.Item>
            <Descriptions.Item label={r('lastInspection')}>
              {detailText(day(state.lastInspectionTime))}
            </Descriptions.Item>
            <Descriptions.Item label={r('org')}>
              {detailText(state.orgName)}
            </Descriptions.Item>
            <Descriptions.Item label={r('station')}>
              {detailText(state.stationName)}
            </Descriptions.Item>
            <Descriptions.Item label={r('odometer')}>
              {detailText(kmText(state.lastOdometerM))}
            </Descriptions.Item>
          </Descriptions>
          <Typography.Title level={5}>{r('history')}</Typography.Title>
          <History records={detail.data.records} />
          <Typography.Title level={5} style={{ marginTop: 16 }}>
            {r('logs')}
          </Typography.Title>
          <Table
            size="small"
            rowKey={(row) => `${row.operTime}-${row.remark}`}
            pagination={false}
            dataSource={detail.data.logs}
            data-testid="inspection-logs"
            columns={[
              { dataIndex: 'remark', title: r('logRemark') },
              { dataIndex: 'operName', title: r('operator'), width: 140 },
              {
                dataIndex: 'operTime',
                title: r('logTime'),
                width: 180,
                render: (at: string) => formatTime(at),
              },
            ]}
          />
        </div>
      ) : (
        <Spin spinning={detail.isFetching} />
      )}
    </Drawer>
  );
}
