import { useDriverOptions } from '@/lib/pickers';
import { ArrowLeftOutlined } from '@ant-design/icons';
import {
  Button,
  Descriptions,
  Form,
  Input,
  Select,
  Space,
  Table,
  Tag,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { ApiError, Code } from '@/lib/api-client';
import { codeLabel } from '@/lib/codes';
import { detailText, formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import {
  useAssignViolation,
  useHandleViolation,
  usePayViolation,
  useViolationDetail,
  type Violation,
} from '../api/violations';
import { VIOLATION_COLORS } from '../components/violation-labels';

const LIST_PATH = '/carManagement/vehicleManagement/trafficViolations';

type Move = 'assign' | 'handle' | 'pay';

/** The dialog of one move: assign (a driver), handle or pay (a remark). */
function MoveDialog({
  move,
  violation,
  onClose,
}: {
  move?: Move;
  violation: Violation;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const m = (key: string) => t(`vehicleManagement:violation.${key}`);
  const [form] = Form.useForm<{ driverId?: string; remark?: string }>();
  const [keyword, setKeyword] = useState('');
  const drivers = useDriverOptions(keyword);
  const assign = useAssignViolation();
  const handle = useHandleViolation();
  const pay = usePayViolation();

  const confirm = async () => {
    const values = await form.validateFields();
    const remark = values.remark ?? '';
    const id = violation.id;
    if (move === 'assign')
      await assign.mutateAsync({
        id,
        body: { driverId: values.driverId ?? '', remark },
      });
    if (move === 'handle')
      await handle.mutateAsync({
        id,
        body: { driverId: '', receipts: [], remark },
      });
    if (move === 'pay')
      await pay.mutateAsync({ id, body: { receipts: [], remark } });
    toastSuccess(m(`${move}Done`));
    form.resetFields();
    onClose();
  };

  return (
    <AppDialog
      open={!!move}
      title={move ? m(move) : ''}
      onCancel={() => {
        form.resetFields();
        onClose();
      }}
      onConfirm={confirm}
      destroyOnHidden
    >
      <Form
        form={form}
        labelCol={{ flex: '105px' }}
        labelAlign="left"
        data-testid="violation-move-form"
      >
        {move === 'assign' && (
          <Form.Item
            name="driverId"
            label={m('driver')}
            rules={[{ required: true, message: m('driverRequired') }]}
          >
            <Select
              showSearch={{ filterOption: false, onSearch: setKeyword }}
              options={drivers.data ?? []}
              loading={drivers.isFetching}
              placeholder={m('driverPlaceholder')}
              data-testid="violation-driver"
            />
          </Form.Item>
        )}
        {move === 'handle' && <p>{m('handleHint')}</p>}
        {move === 'pay' && (
          <p>
            {t('vehicleManagement:violation.payHint', {
              fine: yuan(violation.fineFen),
            })}
          </p>
        )}
        <Form.Item name="remark" label={m('remark')} rules={[{ max: 200 }]}>
          <Input.TextArea
            rows={3}
            maxLength={200}
            data-testid="violation-remark"
          />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}

/**
 * /carManagement/vehicleManagement/trafficViolationsDetail?id= (hidden, as:violation):
 * one violation as the authority recorded it, its responsible driver and
 * state, the moves it allows (assign, handle when unhandled, mark paid when
 * handled) and its operation log.
 */
export default function TrafficViolationDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const { data, isLoading, error, refetch } = useViolationDetail(id);
  const [move, setMove] = useState<Move | undefined>();
  const m = (key: string) => t(`vehicleManagement:violation.${key}`);

  const back = (
    <Button
      key="back"
      icon={<ArrowLeftOutlined />}
      onClick={() => navigate(LIST_PATH)}
      data-testid="violation-back"
    >
      {m('backToList')}
    </Button>
  );
  if (!id)
    return (
      <LoadErrorResult
        error={new ApiError(Code.NotFound, '')}
        onRetry={() => navigate(LIST_PATH)}
        extra={back}
      />
    );
  if (isLoading) return <PageLoading />;
  if (error || !data)
    return (
      <LoadErrorResult
        error={error}
        onRetry={() => void refetch()}
        extra={back}
      />
    );
  const v = data.violation;
  const place = v.location
    ? `${v.address}（${v.location.longitude.toFixed(5)}, ${v.location.latitude.toFixed(5)}）`
    : v.address;

  return (
    <div className="fd-detail-page" data-testid="violation-detail">
      <ModuleCard
        title={`${v.plateNumber} ${m('detailTitle')}`}
        extra={
          <Space>
            <Button
              onClick={() => setMove('assign')}
              data-testid="violation-assign"
            >
              {m('assign')}
            </Button>
            <Button
              type="primary"
              disabled={v.status !== 'UNHANDLED'}
              onClick={() => setMove('handle')}
              data-testid="violation-handle"
            >
              {m('handle')}
            </Button>
            <Button
              disabled={v.status !== 'HANDLED'}
              onClick={() => setMove('pay')}
              data-testid="violation-pay"
            >
              {m('pay')}
            </Button>
            {back}
          </Space>
        }
      >
        <Descriptions
          size="small"
          column={3}
          items={[
            {
              key: 'plate',
              label: m('plateNumber'),
              children: detailText(v.plateNumber),
            },
            { key: 'vin', label: m('vin'), children: detailText(v.vin) },
            { key: 'org', label: m('org'), children: detailText(v.orgName) },
            {
              key: 'time',
              label: m('violationTime'),
              children: detailText(formatTime(v.violationTime)),
            },
            {
              key: 'place',
              label: m('address'),
              children: detailText(place),
              span: 2,
            },
            {
              key: 'code',
              label: m('offenceCode'),
              children: detailText(v.offenceCode),
            },
            {
              key: 'act',
              label: m('description'),
              children: detailText(v.description),
              span: 2,
            },
            { key: 'fine', label: m('fine'), children: yuan(v.fineFen) },
            {
              key: 'points',
              label: m('points'),
              children: String(v.penaltyPoints),
            },
            {
              key: 'decision',
              label: m('decisionNo'),
              children: detailText(v.decisionNo),
            },
            {
              key: 'authority',
              label: m('authority'),
              children: detailText(v.authority),
            },
            {
              key: 'status',
              label: m('status'),
              children: v.status ? (
                <Tag
                  color={VIOLATION_COLORS[v.status]}
                  data-testid="violation-detail-status"
                >
                  {codeLabel(
                    t,
                    'vehicleManagement:violation.statuses',
                    v.status,
                  )}
                </Tag>
              ) : (
                '--'
              ),
            },
            {
              key: 'driver',
              label: m('driver'),
              children: (
                <span data-testid="violation-detail-driver">
                  {v.driverName
                    ? `${v.driverName}${v.driverAssigned ? m('assigned') : m('found')}`
                    : m('nobody')}
                </span>
              ),
            },
            {
              key: 'handler',
              label: m('handler'),
              children: detailText(
                v.handlerName &&
                  `${v.handlerName} ${formatTime(v.handledTime)}`,
              ),
            },
            {
              key: 'payer',
              label: m('payer'),
              children: detailText(
                v.paidByName && `${v.paidByName} ${formatTime(v.paidTime)}`,
              ),
            },
            {
              key: 'remark',
              label: m('remark'),
              children: detailText(v.remark),
            },
            {
              key: 'sync',
              label: m('syncTime'),
              children: detailText(formatTime(v.syncTime)),
            },
          ]}
        />
      </ModuleCard>
      <ModuleCard title={m('logs')}>
        <Table
          size="small"
          rowKey={(row) => `${row.operTime}-${row.remark}`}
          pagination={false}
          dataSource={data.logs}
          data-testid="violation-logs"
          columns={[
            { dataIndex: 'remark', title: m('logRemark') },
            { dataIndex: 'operName', title: m('logOperator'), width: 140 },
            {
              dataIndex: 'operTime',
              title: m('logTime'),
              width: 180,
              render: (at: string) => formatTime(at),
            },
          ]}
        />
      </ModuleCard>
      <MoveDialog
        move={move}
        violation={v}
        onClose={() => setMove(undefined)}
      />
    </div>
  );
}
