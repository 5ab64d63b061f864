import { Col, DatePicker, Form, Input, InputNumber, Row, Select, Spin, TreeSelect } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { ApiError } from '@/lib/api-client';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { useOrgTreeOptions } from '@/lib/org-options';
import { useCreateVehicle, useUpdateVehicle, useVehicle } from '../api/vehicles';
import { suggestedPlateColor, vehicleBody, vehicleFormValues, type VehicleFormValues } from './vehicle-form';
import { codeOptions, ENERGY_TYPES, OWNERSHIP_TYPES, PLATE_COLORS, VEHICLE_CATEGORIES, VEHICLE_STATUSES } from './vehicle-labels';
import { plateRules, vinRules } from './vehicle-rules';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

/** Create or edit a vehicle: plate (8-character new-energy plates too), 17-character VIN, organisation, codes, licence data. */
export function VehicleFormDialog({ open, vehicleId, onClose, onSaved }: { open: boolean; vehicleId?: string; onClose: () => void; onSaved?: (id: string) => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<VehicleFormValues>();
  const orgs = useOrgTreeOptions();
  const vehicle = useVehicle(open ? vehicleId : undefined);
  const create = useCreateVehicle();
  const update = useUpdateVehicle();
  const editing = !!vehicleId;
  // One key per opened form: a retried submit of the same form creates one vehicle.
  const idempotencyKey = useRef(newIdempotencyKey());

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (!vehicleId) {
      idempotencyKey.current = newIdempotencyKey();
      form.setFieldsValue({ status: 'IDLE', ownershipType: 'OWNED', energyType: 'BATTERY_ELECTRIC', category: 'LIGHT_TRUCK' });
    } else if (vehicle.data) form.setFieldsValue(vehicleFormValues(vehicle.data));
  }, [open, vehicleId, vehicle.data, form]);

  const submit = async () => {
    const values = await form.validateFields();
    try {
      const body = vehicleBody(values, vehicle.data);
      const saved = vehicleId ? await update.mutateAsync({ id: vehicleId, body }) : await create.mutateAsync({ body, idempotencyKey: idempotencyKey.current });
      toastSuccess(t(vehicleId ? 'vehicles.updated' : 'vehicles.created'));
      onSaved?.(saved.id);
      onClose();
    } catch (err) {
      // The server's field errors (plate or VIN taken, …) show under their fields.
      if (err instanceof ApiError && err.fields.length) form.setFields(err.fields.map((f) => ({ name: f.field as keyof VehicleFormValues, errors: [f.message] })));
      throw err;
    }
  };

  const required = (key: string) => [{ required: true, message: t(`vehicles.rules.${key}`) }];
  const input = t('common.pleaseInput');
  const choose = t('common.pleaseSelect');
  return (
    <AppDialog open={open} width={860} title={t(editing ? 'vehicles.editTitle' : 'vehicles.createTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Spin spinning={editing && !vehicle.data}>
        <Form
          form={form}
          name="vehicleForm"
          layout="horizontal"
          labelCol={FORM_LABEL_COL}
          data-testid="vehicle-form"
          onValuesChange={(changed: VehicleFormValues) => {
            if ('plateNumber' in changed) form.setFieldValue('plateColor', suggestedPlateColor(changed.plateNumber, form.getFieldValue('plateColor')));
          }}
        >
          <Row gutter={16}>
            <Col span={12}>
              <Form.Item name="plateNumber" label={t('vehicles.fields.plateNumber')} normalize={trimInput} rules={plateRules(t)} validateTrigger="onBlur">
                <Input maxLength={10} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="plateColor" label={t('vehicles.fields.plateColor')}>
                <Select allowClear options={codeOptions(t, 'plateColors', PLATE_COLORS)} placeholder={choose} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="vin" label={t('vehicles.fields.vin')} normalize={trimInput} rules={vinRules(t)} validateTrigger="onBlur">
                <Input maxLength={17} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="orgId" label={t('vehicles.fields.org')} rules={required('orgRequired')}>
                <TreeSelect allowClear treeDefaultExpandAll showSearch={{ treeNodeFilterProp: 'title' }} treeData={orgs} placeholder={choose} data-testid="vehicle-org" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="brand" label={t('vehicles.fields.brand')} normalize={trimInput} rules={required('brandRequired')}>
                <Input maxLength={32} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="model" label={t('vehicles.fields.model')} normalize={trimInput} rules={required('modelRequired')}>
                <Input maxLength={64} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="category" label={t('vehicles.fields.category')} rules={required('categoryRequired')}>
                <Select options={codeOptions(t, 'categories', VEHICLE_CATEGORIES)} placeholder={choose} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="energyType" label={t('vehicles.fields.energyType')} rules={required('energyRequired')}>
                <Select options={codeOptions(t, 'energyTypes', ENERGY_TYPES)} placeholder={choose} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="batteryCapacityKwh" label={t('vehicles.fields.batteryCapacity')}>
                <InputNumber min={0} max={10000} precision={1} style={{ width: '100%' }} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="ratedRangeKm" label={t('vehicles.fields.ratedRange')}>
                <InputNumber min={0} max={10000} precision={0} style={{ width: '100%' }} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="engineNumber" label={t('vehicles.fields.engineNumber')} normalize={trimInput}>
                <Input maxLength={32} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="ownershipType" label={t('vehicles.fields.ownershipType')} rules={required('ownershipRequired')}>
                <Select options={codeOptions(t, 'ownershipTypes', OWNERSHIP_TYPES)} placeholder={choose} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="status" label={t('vehicles.fields.status')} rules={required('statusRequired')}>
                <Select options={codeOptions(t, 'statuses', VEHICLE_STATUSES)} placeholder={choose} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="registerTime" label={t('vehicles.fields.registerTime')}>
                <DatePicker style={{ width: '100%' }} placeholder={choose} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="licenceOwner" label={t('vehicles.fields.licenceOwner')} normalize={trimInput}>
                <Input maxLength={64} placeholder={input} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="licenceIssueTime" label={t('vehicles.fields.licenceIssueTime')}>
                <DatePicker style={{ width: '100%' }} placeholder={choose} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="inspectionExpireTime" label={t('vehicles.fields.inspectionExpireTime')}>
                <DatePicker style={{ width: '100%' }} placeholder={choose} />
              </Form.Item>
            </Col>
            {!editing && (
              <>
                <Col span={12}>
                  <Form.Item name="terminalId" label={t('vehicles.fields.terminalId')} normalize={trimInput}>
                    <Input maxLength={32} placeholder={input} />
                  </Form.Item>
                </Col>
                <Col span={12}>
                  <Form.Item name="terminalSim" label={t('vehicles.fields.terminalSim')} normalize={trimInput}>
                    <Input maxLength={20} placeholder={input} />
                  </Form.Item>
                </Col>
              </>
            )}
            <Col span={24}>
              <Form.Item name="remark" label={t('vehicles.fields.remark')} normalize={trimInput}>
                <Input.TextArea maxLength={200} autoSize={{ minRows: 2, maxRows: 4 }} placeholder={input} />
              </Form.Item>
            </Col>
          </Row>
        </Form>
      </Spin>
    </AppDialog>
  );
}
