import { ArrowLeftOutlined, ClearOutlined, DeleteOutlined, PlusOutlined, UndoOutlined } from '@ant-design/icons';
import { Alert, Button, Checkbox, Col, Form, Input, InputNumber, Radio, Row, Select, Space, Spin, Switch, Table, TimePicker, TreeSelect } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { MapView } from '@/components/map/map-view';
import { ApiError, Code } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastError, toastSuccess } from '@/lib/notify';
import '../messages';
import '../monitoring.css';
import { PURPOSES, SHAPES, useCreateFence, useFence, useFenceInside, useUpdateFence, type GeofencePurpose } from '../api/geofences';
import { useOrgTreeOptions } from '@/lib/org-options';
import { CORRIDOR_WIDTH_M, DWELL_S, fenceBody, fenceFormValues, formFieldOf, geometryProblems, MAX_STAY_MIN, NAME_MAX, newFence, RADIUS_M, SPEED_LIMIT_KMH, type FenceFormValues, type FenceGeometry } from '../components/fence-form';
import { FenceLayer } from '../components/fence-layer';
import { codeOptions } from '../components/status';
import { VehicleSelect } from '../components/vehicle-select';
import { PATHS, pathWith } from '../paths';

const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7];

/** Who is inside the fence now (detail only). */
function InsideNow({ id }: { id: string }) {
  const { t } = useTranslation();
  const inside = useFenceInside(id);
  const rows = inside.data?.list ?? [];
  return (
    <div className="fd-monitor-panel" data-testid="fence-inside">
      <h3>{t('monitoring:fence.insideNow', { count: rows.length })}</h3>
      <Table
        size="small"
        rowKey="vehicleId"
        loading={inside.isFetching}
        dataSource={rows}
        pagination={{ pageSize: 10, hideOnSinglePage: true }}
        columns={[
          { dataIndex: 'plateNumber', title: t('monitoring:fields.plateNumber') },
          { dataIndex: 'enteredAt', title: t('monitoring:fence.enteredAt'), render: (v: string) => formatTime(v) },
        ]}
      />
    </div>
  );
}

/**
 * 新增围栏 (addFence, `?purpose=signIn` for a sign-in point) and 围栏详情
 * (fenceDetail, `?id=`): the shape drawn on the map (circle, polygon or route
 * corridor), speed limit, active windows, dwell, alarms and watched vehicles.
 */
export default function FenceEditPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') || undefined;
  const purposeParam: GeofencePurpose = params.get('purpose') === 'signIn' ? 'signIn' : 'area';
  const fence = useFence(id);
  const create = useCreateFence();
  const update = useUpdateFence();
  const orgs = useOrgTreeOptions();
  const [form] = Form.useForm<FenceFormValues>();
  const initial = useMemo(() => (fence.data ? fenceFormValues(fence.data) : newFence(purposeParam)), [fence.data, purposeParam]);
  const [geometry, setGeometry] = useState<FenceGeometry>(initial.geometry);
  const [showProblems, setShowProblems] = useState(false);
  const [serverProblems, setServerProblems] = useState<string[]>([]);
  // One key per opened form: a double or retried submit creates one fence.
  const idempotencyKey = useRef(newIdempotencyKey());
  const purpose = Form.useWatch('purpose', form) ?? initial.values.purpose;

  useEffect(() => {
    form.setFieldsValue(initial.values);
    setGeometry(initial.geometry);
  }, [initial, form]);

  const problems = geometryProblems(geometry);
  const changeShape = (shape: FenceGeometry['shape']) => setGeometry((g) => ({ ...g, shape, radiusM: g.radiusM ?? RADIUS_M.default, corridorWidthM: g.corridorWidthM ?? CORRIDOR_WIDTH_M.default }));

  const save = async () => {
    setShowProblems(true);
    setServerProblems([]);
    let values: FenceFormValues;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    if (problems.length) {
      toastError(t(`monitoring:fence.rules.${problems[0]}`));
      return;
    }
    const body = fenceBody(values, geometry);
    try {
      if (id) {
        await update.mutateAsync({ id, body });
        toastSuccess(t('monitoring:common.saved'));
      } else {
        const created = await create.mutateAsync({ body, idempotencyKey: idempotencyKey.current });
        idempotencyKey.current = newIdempotencyKey();
        toastSuccess(t('monitoring:fence.created'));
        navigate(pathWith(PATHS.fenceDetail, { id: created.id }), { replace: true });
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === Code.Validation) {
        const onForm = err.fields.filter((f) => formFieldOf(f.field));
        form.setFields(onForm.map((f) => ({ name: formFieldOf(f.field) as keyof FenceFormValues, errors: [f.message] })));
        setServerProblems(err.fields.filter((f) => !formFieldOf(f.field)).map((f) => f.message));
      }
    }
  };

  if (id && fence.error) return <LoadErrorResult error={fence.error} onRetry={() => void fence.refetch()} />;
  const drawHint = geometry.shape === 'circle' ? 'drawCircle' : geometry.shape === 'polygon' ? 'drawPolygon' : 'drawCorridor';
  return (
    <div className="fd-monitor-page" data-testid="fence-edit">
      <div className="fd-monitor-split">
        <div className="fd-monitor-panel">
          <Spin spinning={!!id && fence.isLoading}>
            <Space style={{ marginBottom: 12 }}>
              <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(purpose === 'signIn' ? PATHS.singInSetPage : PATHS.managePage)}>
                {t('monitoring:common.back')}
              </Button>
              <Button type="primary" loading={create.isPending || update.isPending} onClick={() => void save()} data-testid="fence-save">
                {t('monitoring:common.save')}
              </Button>
            </Space>
            <Form form={form} layout="vertical" name="fenceForm" initialValues={initial.values}>
              <Form.Item name="name" label={t('monitoring:fence.name')} rules={[{ required: true, whitespace: true, message: t('monitoring:fence.rules.nameRequired') }, { max: NAME_MAX, message: t('monitoring:fence.rules.nameLength', { max: NAME_MAX }) }]}>
                <Input maxLength={NAME_MAX} placeholder={t('monitoring:fence.namePlaceholder')} data-testid="fence-name" />
              </Form.Item>
              <Row gutter={12}>
                <Col span={12}>
                  <Form.Item name="purpose" label={t('monitoring:fence.purpose')}>
                    <Select
                      options={codeOptions(t, 'purpose', PURPOSES)}
                      disabled={!!id}
                      onChange={(p: GeofencePurpose) => {
                        if (p === 'signIn') changeShape('circle');
                      }}
                    />
                  </Form.Item>
                </Col>
                <Col span={12}>
                  <Form.Item name="orgId" label={t('monitoring:fields.org')} rules={[{ required: true, message: t('monitoring:fence.rules.orgRequired') }]}>
                    <TreeSelect allowClear treeDefaultExpandAll showSearch={{ treeNodeFilterProp: 'title' }} treeData={orgs} placeholder={t('common.pleaseSelect')} data-testid="fence-org" />
                  </Form.Item>
                </Col>
              </Row>
              <Form.Item label={t('monitoring:fence.shape')} required>
                <Radio.Group value={geometry.shape} onChange={(e) => changeShape(e.target.value as FenceGeometry['shape'])} disabled={purpose === 'signIn'} optionType="button" options={codeOptions(t, 'shape', SHAPES)} data-testid="fence-shape" />
              </Form.Item>
              {geometry.shape === 'circle' && (
                <Form.Item label={t('monitoring:fence.radius')} required>
                  <InputNumber min={RADIUS_M.min} max={RADIUS_M.max} precision={0} value={geometry.radiusM} onChange={(v) => setGeometry((g) => ({ ...g, radiusM: v ?? undefined }))} addonAfter="m" style={{ width: '100%' }} data-testid="fence-radius" />
                </Form.Item>
              )}
              {geometry.shape === 'corridor' && (
                <Form.Item label={t('monitoring:fence.corridorWidth')} required>
                  <InputNumber min={CORRIDOR_WIDTH_M.min} max={CORRIDOR_WIDTH_M.max} precision={0} value={geometry.corridorWidthM} onChange={(v) => setGeometry((g) => ({ ...g, corridorWidthM: v ?? undefined }))} addonAfter="m" style={{ width: '100%' }} />
                </Form.Item>
              )}
              <Alert type="info" showIcon title={t(`monitoring:fence.${drawHint}`)} style={{ marginBottom: 8 }} />
              {geometry.shape !== 'circle' && (
                <Space style={{ marginBottom: 8 }}>
                  <Button size="small" icon={<UndoOutlined />} disabled={!geometry.points.length} onClick={() => setGeometry((g) => ({ ...g, points: g.points.slice(0, -1) }))}>
                    {t('monitoring:fence.undoPoint')}
                  </Button>
                  <Button size="small" icon={<ClearOutlined />} disabled={!geometry.points.length} onClick={() => setGeometry((g) => ({ ...g, points: [] }))}>
                    {t('monitoring:fence.clearPoints')}
                  </Button>
                  <span className="fd-muted">{t('monitoring:fence.pointCount', { count: geometry.points.length })}</span>
                </Space>
              )}
              {(showProblems && problems.length > 0) || serverProblems.length > 0 ? (
                <Alert type="error" showIcon title={[...(showProblems ? problems.map((p) => t(`monitoring:fence.rules.${p}`)) : []), ...serverProblems].join('；')} style={{ marginBottom: 12 }} data-testid="fence-geometry-error" />
              ) : null}
              <Row gutter={12}>
                <Col span={12}>
                  <Form.Item name="speedLimitKmh" label={t('monitoring:fence.speedLimit')} rules={[{ type: 'number', min: SPEED_LIMIT_KMH.min, max: SPEED_LIMIT_KMH.max, message: t('monitoring:fence.rules.speedRange', SPEED_LIMIT_KMH) }]}>
                    <InputNumber precision={0} addonAfter="km/h" style={{ width: '100%' }} placeholder={t('monitoring:fence.noLimit')} />
                  </Form.Item>
                </Col>
                <Col span={12}>
                  <Form.Item name="dwellSeconds" label={t('monitoring:fence.dwell')} tooltip={t('monitoring:fence.dwellHint')} rules={[{ type: 'number', min: DWELL_S.min, max: DWELL_S.max, message: t('monitoring:fence.rules.dwellRange', DWELL_S) }]}>
                    <InputNumber precision={0} addonAfter={t('monitoring:fence.seconds')} style={{ width: '100%' }} />
                  </Form.Item>
                </Col>
                {purpose !== 'signIn' && (
                  <Col span={12}>
                    <Form.Item name="maxStayMinutes" label={t('monitoring:fence.maxStay')} tooltip={t('monitoring:fence.maxStayHint')} rules={[{ type: 'number', min: MAX_STAY_MIN.min, max: MAX_STAY_MIN.max, message: t('monitoring:fence.rules.maxStayRange', MAX_STAY_MIN) }]}>
                      <InputNumber precision={0} addonAfter={t('monitoring:fence.minutes')} style={{ width: '100%' }} placeholder={t('monitoring:fence.noStayLimit')} data-testid="fence-max-stay" />
                    </Form.Item>
                  </Col>
                )}
              </Row>
              <Space size="large">
                <Form.Item name="alarmOnEnter" valuePropName="checked">
                  <Checkbox>{t('monitoring:fence.alarmOnEnter')}</Checkbox>
                </Form.Item>
                <Form.Item name="alarmOnExit" valuePropName="checked">
                  <Checkbox>{t('monitoring:fence.alarmOnExit')}</Checkbox>
                </Form.Item>
                <Form.Item name="enabled" valuePropName="checked" label={t('monitoring:fence.enabled')} layout="horizontal">
                  <Switch />
                </Form.Item>
              </Space>
              <Form.Item label={t('monitoring:fence.windows')} tooltip={t('monitoring:fence.windowsHint')}>
                <Form.List name="windows">
                  {(items, { add, remove }) => (
                    <>
                      {items.map((item) => (
                        <Space key={item.key} align="start" wrap>
                          <Form.Item name={[item.name, 'weekdays']} rules={[{ required: true, type: 'array', min: 1, message: t('monitoring:fence.rules.weekdaysRequired') }]}>
                            <Select mode="multiple" style={{ width: 280 }} options={WEEKDAYS.map((d) => ({ value: d, label: t(`monitoring:fence.weekday.${d}`) }))} placeholder={t('monitoring:fence.weekdays')} />
                          </Form.Item>
                          <Form.Item
                            name={[item.name, 'range']}
                            rules={[
                              { required: true, message: t('monitoring:fence.rules.windowRequired') },
                              {
                                validator: (_, v: FenceFormValues['windows'][number]['range']) =>
                                  v?.[0] && v?.[1] && v[0].format('HH:mm') === v[1].format('HH:mm') ? Promise.reject(new Error(t('monitoring:fence.rules.windowEmpty'))) : Promise.resolve(),
                              },
                            ]}
                          >
                            <TimePicker.RangePicker format="HH:mm" order={false} />
                          </Form.Item>
                          <Button type="text" icon={<DeleteOutlined />} onClick={() => remove(item.name)} aria-label={t('monitoring:fence.removeWindow')} />
                        </Space>
                      ))}
                      <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({ weekdays: [1, 2, 3, 4, 5], range: null })}>
                        {t('monitoring:fence.addWindow')}
                      </Button>
                    </>
                  )}
                </Form.List>
              </Form.Item>
              <Form.Item name="vehicleIds" label={t('monitoring:fence.vehicles')} tooltip={t('monitoring:fence.vehiclesHint')}>
                <VehicleSelect placeholder={t('monitoring:fence.allVehicles')} />
              </Form.Item>
            </Form>
          </Spin>
        </div>
        <div className="fd-monitor-panel fd-monitor-panel--map">
          <MapView data-testid="fence-map">
            <FenceLayer geometry={geometry} editable onChange={setGeometry} fit={!!id} />
          </MapView>
        </div>
      </div>
      {id && <InsideNow id={id} />}
    </div>
  );
}
