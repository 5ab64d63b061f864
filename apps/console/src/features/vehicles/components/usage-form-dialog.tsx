import { Col, DatePicker, Form, Input, InputNumber, Row, Select, Spin, Switch } from 'antd';
import { useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { useCreateUsageRecord, useUpdateUsageRecord, useUsageRecord } from '../api/usage-records';
import { MAX_YUAN, yuan } from '@/lib/money';
import { showServerErrors } from '@/lib/server-errors';
import { rentToOwnTotalFen, USAGE_LIMITS, usageBody, usageFormField, usageFormValues, usageRules, type UsageFormValues } from './usage-form';
import { kindHasEnd, REPLACEMENT_REASONS } from './usage-labels';
import type { UsageKind } from './vehicle-labels';
import { VehiclePicker } from './vehicle-picker';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

const money = (placeholder: string) => <InputNumber min={0} max={MAX_YUAN} precision={2} style={{ width: '100%' }} placeholder={placeholder} />;
const count = (placeholder: string, max: number) => <InputNumber min={0} max={max} precision={0} style={{ width: '100%' }} placeholder={placeholder} />;

/**
 * Create or edit a usage record of one kind (650 px): the vehicle (fixed once
 * created), contract, period and the kind's terms, money typed in yuan. A
 * vehicle with an unfinished record is refused by the server (4009), shown on
 * the vehicle field.
 */
export function UsageFormDialog({ kind, open, recordId, onClose }: { kind: UsageKind; open: boolean; recordId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<UsageFormValues>();
  const record = useUsageRecord(open ? recordId : undefined);
  const create = useCreateUsageRecord();
  const update = useUpdateUsageRecord();
  const editing = !!recordId;
  // One key per opened form: a retried submit of the same form creates one record.
  const idempotencyKey = useRef(newIdempotencyKey());
  const ready = !editing || !!record.data;
  const stored = editing ? record.data : undefined;
  const initialValues = useMemo<UsageFormValues>(() => (stored ? usageFormValues(stored) : {}), [stored]);
  const rules = usageRules(t);
  const u = (key: string) => t(`vehicles.usage.${key}`);
  const input = t('common.pleaseInput');
  const choose = t('common.pleaseSelect');

  const submit = async () => {
    const values = await form.validateFields();
    try {
      const body = usageBody(kind, values, stored);
      if (recordId) await update.mutateAsync({ id: recordId, body });
      else await create.mutateAsync({ body, idempotencyKey: idempotencyKey.current });
      if (!recordId) idempotencyKey.current = newIdempotencyKey();
      toastSuccess(t(recordId ? 'vehicles.usage.updated' : 'vehicles.usage.created'));
      onClose();
    } catch (err) {
      // 4000 field errors under their fields; a create's 4009 (the vehicle has an open record) under the vehicle.
      showServerErrors(form, err, { toField: usageFormField, conflictField: () => (editing ? undefined : 'vehicleId') });
      throw err;
    }
  };

  const date = (name: string | string[], label: string, extra: Record<string, unknown> = {}) => (
    <Form.Item name={name} label={label} {...extra}>
      <DatePicker style={{ width: '100%' }} placeholder={choose} />
    </Form.Item>
  );

  return (
    <AppDialog
      open={open}
      width={650}
      title={t(editing ? `vehicles.usage.editTitles.${kind}` : `vehicles.usage.addTitles.${kind}`)}
      onCancel={onClose}
      onConfirm={submit}
      destroyOnHidden
    >
      <Spin spinning={!ready}>
        {ready && (
          <Form form={form} name="usageForm" layout="horizontal" labelCol={FORM_LABEL_COL} initialValues={initialValues} preserve={false} data-testid="usage-form">
            <Row gutter={12}>
              <Col span={12}>
                <Form.Item name="vehicleId" label={u('vehicle')} rules={rules.vehicleId}>
                  <VehiclePicker disabled={editing} current={stored ? { value: stored.vehicleId, label: stored.plateNumber } : undefined} data-testid="usage-vehicle" />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="contractNo" label={u('contractNo')} normalize={trimInput} rules={rules.contractNo}>
                  <Input maxLength={USAGE_LIMITS.contractNo} placeholder={input} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="counterparty" label={u('counterparty')} normalize={trimInput} rules={rules.counterparty}>
                  <Input maxLength={USAGE_LIMITS.counterparty} placeholder={input} />
                </Form.Item>
              </Col>
              <Col span={12}>{date('startTime', u('startTime'), { rules: rules.startTime })}</Col>
              {kindHasEnd(kind) && <Col span={12}>{date('endTime', u('endTime'), { rules: rules.endTime, dependencies: ['startTime'] })}</Col>}

              {kind === 'RENT' && (
                <>
                  <Col span={12}>
                    <Form.Item name={['rent', 'monthlyRent']} label={u('monthlyRent')} rules={rules.monthlyRent}>
                      {money(input)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rent', 'deposit']} label={u('deposit')}>
                      {money(input)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rent', 'termMonths']} label={u('termMonths')} rules={rules.rentTerm}>
                      {count(input, USAGE_LIMITS.maxTermMonths)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rent', 'paymentDay']} label={u('paymentDay')} rules={rules.paymentDay} extra={u('paymentDayHint')}>
                      {count(input, USAGE_LIMITS.maxPaymentDay)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>{date(['rent', 'returnTime'], u('returnTime'))}</Col>
                </>
              )}

              {kind === 'PURCHASE' && (
                <>
                  <Col span={12}>
                    <Form.Item name={['purchase', 'price']} label={u('price')} rules={rules.price}>
                      {money(input)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['purchase', 'purchaseTax']} label={u('purchaseTax')}>
                      {money(input)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['purchase', 'invoiceNo']} label={u('invoiceNo')} normalize={trimInput} rules={rules.invoiceNo}>
                      <Input maxLength={USAGE_LIMITS.invoiceNo} placeholder={input} />
                    </Form.Item>
                  </Col>
                  <Col span={12}>{date(['purchase', 'deliveryTime'], u('deliveryTime'))}</Col>
                </>
              )}

              {kind === 'REPLACEMENT' && (
                <>
                  <Col span={12}>
                    <Form.Item name={['replacement', 'replacedVehicleId']} label={u('replacedPlate')} rules={rules.replacedVehicleId} dependencies={['vehicleId']}>
                      <VehiclePicker
                        current={stored?.replacement ? { value: stored.replacement.replacedVehicleId, label: stored.replacement.replacedPlateNumber ?? '' } : undefined}
                        data-testid="usage-replaced-vehicle"
                      />
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['replacement', 'reason']} label={u('reason')} rules={rules.reason}>
                      <Select options={REPLACEMENT_REASONS.map((r) => ({ value: r, label: t(`vehicles.usage.reasons.${r}`) }))} placeholder={choose} />
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['replacement', 'temporary']} label={u('temporary')} valuePropName="checked">
                      <Switch />
                    </Form.Item>
                  </Col>
                </>
              )}

              {kind === 'RENT_TO_OWN' && (
                <>
                  <Col span={12}>
                    <Form.Item name={['rentToOwn', 'termMonths']} label={u('instalments')} rules={rules.instalments}>
                      {count(input, USAGE_LIMITS.maxTermMonths)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rentToOwn', 'monthlyPayment']} label={u('monthlyPayment')} rules={rules.monthlyPayment}>
                      {money(input)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rentToOwn', 'downPayment']} label={u('downPayment')}>
                      {money(input)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rentToOwn', 'finalPayment']} label={u('finalPayment')}>
                      {money(input)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item label={u('totalPrice')} shouldUpdate>
                      {({ getFieldValue }) => <span data-testid="usage-total-price">{yuan(rentToOwnTotalFen(getFieldValue('rentToOwn') as UsageFormValues['rentToOwn']))}</span>}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rentToOwn', 'paidPeriods']} label={u('paidPeriods')} rules={rules.paidPeriods} dependencies={[['rentToOwn', 'termMonths'], ['rentToOwn', 'overduePeriods']]}>
                      {count(input, USAGE_LIMITS.maxTermMonths)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>
                    <Form.Item name={['rentToOwn', 'overduePeriods']} label={u('overduePeriods')}>
                      {count(input, USAGE_LIMITS.maxTermMonths)}
                    </Form.Item>
                  </Col>
                  <Col span={12}>{date(['rentToOwn', 'ownershipTransferTime'], u('ownershipTransferTime'))}</Col>
                </>
              )}

              <Col span={24}>
                <Form.Item name="remark" label={t('vehicles.fields.remark')} normalize={trimInput} rules={rules.remark}>
                  <Input.TextArea maxLength={USAGE_LIMITS.remark} autoSize={{ minRows: 2, maxRows: 4 }} placeholder={input} />
                </Form.Item>
              </Col>
            </Row>
          </Form>
        )}
      </Spin>
    </AppDialog>
  );
}
