import { Checkbox, Col, DatePicker, Form, Input, Row, Select, Spin, TreeSelect } from 'antd';
import { useCallback, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { UploadControl } from '@/components/upload/upload-control';
import { IMAGE_TYPES } from '@/components/upload/upload-rules';
import { uploaderFor } from '@/lib/files';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess, toastWarning } from '@/lib/notify';
import { trimInput } from '@/lib/validators';
import { useCreateDriver, useDriver, useUpdateDriver } from '../api/drivers';
import { useOrgTreeOptions } from '@/lib/org-options';
import { DRIVER_IMAGE_FIELDS, driverBody, driverFormValues, NEW_DRIVER_VALUES, type DriverFormValues } from './driver-form';
import { driverStatusOptions, licenceClassOptions } from './driver-labels';
import {
  addressRules, DRIVER_LIMITS, driverNameRules, driverPhoneRules, employeeNoRules, firstIssueRules, idCardExpireRules, idNumberRules, licenceClassRules, licenceExpireRules, remarkRules,
} from './driver-rules';
import { showServerErrors } from '@/lib/server-errors';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

/** The upload purpose of a driver's ID card and licence images (png/jpeg/jpg/webp/gif under 5 MB). */
const DRIVER_IMAGE_PURPOSE = 'driver' as const;
const DRIVER_IMAGE_MAX_MB = 5;
const uploadDriverImage = uploaderFor(DRIVER_IMAGE_PURPOSE);

const FORM_FIELDS = new Set<string>([
  'orgId', 'name', 'phone', 'idNumber', 'employeeNo', 'licenceClass', 'licenceFirstIssueTime', 'licenceExpireTime', 'address', 'status', 'hireTime', 'remark', 'idCardExpireTime', ...DRIVER_IMAGE_FIELDS,
]);

/** A 4009 of a driver names the phone or the ID number taken by another driver. */
const conflictField = (message: string) => (message.includes('身份证') ? 'idNumber' : message.includes('手机') ? 'phone' : undefined);

const IMAGE_LABELS: Record<(typeof DRIVER_IMAGE_FIELDS)[number], string> = {
  licenceFront: 'vehicles.driver.licenceFront',
  licenceBack: 'vehicles.driver.licenceBack',
  idCardFront: 'vehicles.driver.idCardFront',
  idCardBack: 'vehicles.driver.idCardBack',
};

/** Create or edit a driver (650 px): organisation, name, phone, ID number, licence, status, document images. */
export function DriverFormDialog({ open, driverId, onClose }: { open: boolean; driverId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<DriverFormValues>();
  const orgs = useOrgTreeOptions();
  const driver = useDriver(open ? driverId : undefined);
  const create = useCreateDriver();
  const update = useUpdateDriver();
  const editing = !!driverId;
  // One key per opened form: a retried submit of the same form creates one driver.
  const idempotencyKey = useRef(newIdempotencyKey());
  const [uploads, setUploads] = useState<Record<string, boolean>>({});
  const busyOf = useCallback((field: string) => (busy: boolean) => setUploads((u) => (u[field] === busy ? u : { ...u, [field]: busy })), []);
  const busyHandlers = useMemo(() => Object.fromEntries(DRIVER_IMAGE_FIELDS.map((f) => [f, busyOf(f)])), [busyOf]);
  const ready = !editing || !!driver.data;
  const longTerm = Form.useWatch('idCardLongTerm', form) === true;
  const initialValues = useMemo(() => (driver.data && editing ? driverFormValues(driver.data) : NEW_DRIVER_VALUES), [driver.data, editing]);

  const submit = async () => {
    // Spec §4: a form cannot be sent while a file uploads.
    if (Object.values(uploads).some(Boolean)) {
      toastWarning(t('upload.inProgress'));
      throw new Error('uploading');
    }
    const values = await form.validateFields();
    try {
      const body = driverBody(values, editing ? driver.data : undefined);
      if (driverId) await update.mutateAsync({ id: driverId, body });
      else await create.mutateAsync({ body, idempotencyKey: idempotencyKey.current });
      if (!driverId) idempotencyKey.current = newIdempotencyKey();
      toastSuccess(t(driverId ? 'vehicles.driver.updated' : 'vehicles.driver.created'));
      onClose();
    } catch (err) {
      // The server's field errors (phone or ID number taken, …) show under their fields.
      showServerErrors(form, err, { toField: (f) => (FORM_FIELDS.has(f) ? f : undefined), conflictField });
      throw err;
    }
  };

  const input = t('common.pleaseInput');
  const choose = t('common.pleaseSelect');
  const keep = (masked: string | undefined) => (masked ? t('vehicles.driver.keepMasked', { value: masked }) : input);
  return (
    <AppDialog open={open} width={650} title={t(editing ? 'vehicles.driver.edit' : 'vehicles.driver.add')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Spin spinning={!ready}>
        {ready && (
          <Form form={form} name="driverForm" layout="horizontal" labelCol={FORM_LABEL_COL} initialValues={initialValues} preserve={false} data-testid="driver-form">
            <Row gutter={12}>
              <Col span={12}>
                <Form.Item name="name" label={t('vehicles.driver.name')} normalize={trimInput} rules={driverNameRules(t)}>
                  <Input maxLength={DRIVER_LIMITS.name} placeholder={input} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="orgId" label={t('vehicles.fields.org')} rules={[{ required: true, message: t('vehicles.rules.orgRequired') }]}>
                  <TreeSelect allowClear treeDefaultExpandAll showSearch={{ treeNodeFilterProp: 'title' }} treeData={orgs} placeholder={choose} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="phone" label={t('vehicles.driver.phone')} normalize={trimInput} rules={driverPhoneRules(t, editing)} validateTrigger="onBlur">
                  <Input maxLength={11} placeholder={keep(driver.data?.phone)} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="idNumber" label={t('vehicles.driver.idNumber')} normalize={trimInput} rules={idNumberRules(t, editing)} validateTrigger="onBlur">
                  <Input maxLength={18} placeholder={keep(driver.data?.idNumber)} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="idCardExpireTime" label={t('vehicles.driver.idCardExpireTime')} rules={longTerm ? [] : idCardExpireRules(t)}>
                  <DatePicker style={{ width: '100%' }} placeholder={choose} disabled={longTerm} data-testid="driver-id-card-expire" />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="idCardLongTerm" valuePropName="checked" label=" " colon={false}>
                  <Checkbox
                    data-testid="driver-id-card-long-term"
                    onChange={(e) => {
                      if (e.target.checked) form.setFieldValue('idCardExpireTime', null);
                    }}
                  >
                    {t('vehicles.driver.idCardLongTerm')}
                  </Checkbox>
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="licenceClass" label={t('vehicles.driver.licenceClass')} rules={licenceClassRules(t)}>
                  <Select options={licenceClassOptions()} placeholder={choose} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="status" label={t('vehicles.driver.status')}>
                  <Select options={driverStatusOptions(t)} placeholder={choose} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="licenceFirstIssueTime" label={t('vehicles.driver.licenceFirstIssueTime')} rules={firstIssueRules(t)}>
                  <DatePicker style={{ width: '100%' }} placeholder={choose} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="licenceExpireTime" label={t('vehicles.driver.licenceExpireTime')} rules={licenceExpireRules(t)} dependencies={['licenceFirstIssueTime']}>
                  <DatePicker style={{ width: '100%' }} placeholder={choose} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="employeeNo" label={t('vehicles.driver.employeeNo')} normalize={trimInput} rules={employeeNoRules(t)}>
                  <Input maxLength={DRIVER_LIMITS.employeeNo} placeholder={input} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item name="hireTime" label={t('vehicles.driver.hireTime')}>
                  <DatePicker style={{ width: '100%' }} placeholder={choose} />
                </Form.Item>
              </Col>
              <Col span={24}>
                <Form.Item name="address" label={t('vehicles.driver.address')} normalize={trimInput} rules={addressRules(t)}>
                  <Input maxLength={DRIVER_LIMITS.address} placeholder={keep(driver.data?.address)} />
                </Form.Item>
              </Col>
              {DRIVER_IMAGE_FIELDS.map((field) => (
                <Col span={12} key={field}>
                  <Form.Item name={field} label={t(IMAGE_LABELS[field])}>
                    <UploadControl
                      upload={uploadDriverImage}
                      types={IMAGE_TYPES}
                      maxSizeMb={DRIVER_IMAGE_MAX_MB}
                      limit={1}
                      pictureCard
                      onBusyChange={busyHandlers[field]}
                    />
                  </Form.Item>
                </Col>
              ))}
              <Col span={24}>
                <Form.Item name="remark" label={t('vehicles.fields.remark')} normalize={trimInput} rules={remarkRules(t)}>
                  <Input.TextArea maxLength={DRIVER_LIMITS.remark} autoSize={{ minRows: 2, maxRows: 4 }} placeholder={input} />
                </Form.Item>
              </Col>
            </Row>
          </Form>
        )}
      </Spin>
    </AppDialog>
  );
}
