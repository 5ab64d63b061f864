/** 录入保单 / 编辑保单 on the dynamic form, the policy's detail drawer, and its documents with their signed links. */
import { Button, Descriptions, Drawer, Form, Spin, Table, Tag, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { FileLinkViewer } from '@/components/file-attachment/file-link-viewer';
import { LoadErrorBanner } from '@/components/load-error';
import { OperationLogTable } from '@/components/operation-log-table';
import { codeLabel } from '@/lib/codes';
import { detailText, formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import { POLICIES_KEY, POLICY_FILE_PERMISSION, policyDocumentLink, usePolicyDetail, useSavePolicy, type Policy, type PolicyDetail } from '../api/insurance';
import { POLICY_COLORS } from './insurance-labels';
import { policyBody, policyFields, policyRecord } from './policy-form';

export interface PolicyFormDialogProps {
  open: boolean;
  /** The policy corrected; none: a new one. */
  policy?: Policy;
  onClose: () => void;
}

export function PolicyFormDialog({ open, policy, onClose }: PolicyFormDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const fields = useMemo(() => policyFields(t), [t]);
  const record = useMemo(() => policyRecord(policy), [policy]);
  const save = useSavePolicy();

  const confirm = async () => {
    await form.validateFields();
    const raw = form.getFieldsValue(true) as FormValues;
    await save.mutateAsync({ id: policy?.id, body: policyBody(toSubmitValues(fields, raw), raw) });
    toastSuccess(t('vehicleManagement:common.saved'));
    onClose();
  };

  return (
    <AppDialog
      open={open}
      width={900}
      title={t(policy ? 'vehicleManagement:insurance.editTitle' : 'vehicleManagement:insurance.addTitle')}
      onCancel={onClose}
      onConfirm={confirm}
      destroyOnHidden
    >
      <DynamicForm form={form} fields={fields} record={record} name="insurance-policy" />
    </AppDialog>
  );
}

/** A policy's status tag. */
export function PolicyStatusTag({ status }: { status: Policy['status'] }) {
  const { t } = useTranslation();
  return status ? (
    <Tag color={POLICY_COLORS[status]} data-testid="policy-status">
      {codeLabel(t, 'vehicleManagement:insurance.statuses', status)}
    </Tag>
  ) : (
    <>--</>
  );
}

/** The policy's documents, each opened through a fresh signed link (disabled without the file permission). */
export function PolicyDocuments({ policy }: { policy: Policy }) {
  const { t } = useTranslation();
  const i = (key: string) => t(`vehicleManagement:insurance.${key}`);
  return (
    <Table
      size="small"
      rowKey="key"
      pagination={false}
      dataSource={policy.documents}
      data-testid="policy-documents"
      locale={{ emptyText: i('noDocuments') }}
      columns={[
        { title: i('documentName'), dataIndex: 'name' },
        {
          title: t('vehicleManagement:common.actions'),
          width: 200,
          render: (_, doc) => (
            <FileLinkViewer permission={POLICY_FILE_PERMISSION} fetchLink={() => policyDocumentLink(policy.id, doc.key)}>
              {i('download')}
            </FileLinkViewer>
          ),
        },
      ]}
    />
  );
}

/** The log came with the detail (newest first): the table pages through it here. */
function logPage(detail: PolicyDetail | undefined, page: number, size: number) {
  const logs = (detail?.logs ?? []).map((entry, n) => ({ ...entry, id: String(n) }));
  return Promise.resolve({ list: logs.slice((page - 1) * size, page * size), total: logs.length });
}

export function PolicyDrawer({ policyId, onClose, onEdit }: { policyId?: string; onClose: () => void; onEdit: (policy: Policy) => void }) {
  const { t } = useTranslation();
  const i = (key: string) => t(`vehicleManagement:insurance.${key}`);
  const detail = usePolicyDetail(policyId);
  const policy = detail.data?.policy;
  const fields = useMemo(() => policyFields(t), [t]);
  const record = useMemo(() => policyRecord(policy), [policy]);
  return (
    <Drawer
      open={!!policyId}
      size={960}
      title={i('detailTitle')}
      onClose={onClose}
      destroyOnHidden
      extra={
        policy && (
          <Button type="primary" onClick={() => onEdit(policy)} data-testid="policy-edit">
            {t('vehicleManagement:common.edit')}
          </Button>
        )
      }
    >
      <LoadErrorBanner error={detail.error} onRetry={() => void detail.refetch()} />
      {policy ? (
        <div data-testid="policy-detail">
          <Descriptions size="small" column={3} style={{ marginBottom: 16 }}>
            <Descriptions.Item label={i('status')}>
              <PolicyStatusTag status={policy.status} />
            </Descriptions.Item>
            <Descriptions.Item label={i('org')}>{detailText(policy.orgName)}</Descriptions.Item>
            <Descriptions.Item label={i('vin')}>{detailText(policy.vin)}</Descriptions.Item>
            <Descriptions.Item label={i('createdBy')}>{detailText(policy.createdBy)}</Descriptions.Item>
            <Descriptions.Item label={i('createTime')}>{detailText(formatTime(policy.createTime))}</Descriptions.Item>
          </Descriptions>
          <DynamicForm mode="detail" fields={fields.filter((f) => f.kind !== 'upload')} record={record} />
          <div>
            <Typography.Title level={5}>{i('documents')}</Typography.Title>
            <PolicyDocuments policy={policy} />
            <Typography.Title level={5}>{i('opLog')}</Typography.Title>
            <OperationLogTable queryKey={[...POLICIES_KEY, 'log', policy.id, detail.dataUpdatedAt]} fetch={(page, size) => logPage(detail.data, page, size)} />
          </div>
        </div>
      ) : (
        <Spin spinning={detail.isFetching} />
      )}
    </Drawer>
  );
}
