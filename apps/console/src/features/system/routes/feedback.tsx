import { Button, Form, Input, Space } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE } from '@/config/constants';
import { LoadErrorBanner } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PaginatedTable, type TableColumn } from '@/components/paginated-table';
import { UploadControl, type FileItem } from '@/components/upload/upload-control';
import { FEEDBACK_ATTACHMENTS, attachmentKeysOf, uploaderFor } from '@/lib/files';
import { BLANK, formatTime } from '@/lib/format';
import { isPhoneOrEmail } from '@/lib/validators';
import { toastSuccess, toastWarning } from '@/lib/notify';
import { CONTACT_MAX, FEEDBACK_MAX, useMyFeedback, useSubmitFeedback, type Feedback } from '../api/help';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

interface FeedbackForm {
  content: string;
  contact?: string;
  attachments?: FileItem[];
}

const uploadFeedbackFile = uploaderFor('feedback');

/** Help centre › feedback (open to all): a form and the user's own feedback, newest first. */
export default function FeedbackPage() {
  const { t } = useTranslation();
  const [form] = Form.useForm<FeedbackForm>();
  const [page, setPage] = useState(FIRST_PAGE);
  const [size, setSize] = useState(DEFAULT_PAGE_SIZE);
  const { data, isFetching, error, refetch } = useMyFeedback({ page, size });
  const submit = useSubmitFeedback();
  const [uploading, setUploading] = useState(false);
  const [uploaderKey, setUploaderKey] = useState(0);
  const onBusyChange = useCallback((busy: boolean) => setUploading(busy), []);

  const onFinish = async (values: FeedbackForm) => {
    // Spec §4: a form cannot be sent while a file uploads.
    if (uploading) {
      toastWarning(t('upload.inProgress'));
      return;
    }
    try {
      await submit.mutateAsync({ content: values.content.trim(), contact: (values.contact ?? '').trim(), attachmentKeys: attachmentKeysOf(values.attachments) });
    } catch {
      return; // The request client showed why; the form keeps its text.
    }
    toastSuccess(t('feedback.submitted'));
    form.resetFields();
    setUploaderKey((k) => k + 1); // a fresh, empty upload control
    setPage(FIRST_PAGE);
  };

  const columns: TableColumn<Feedback>[] = [
    { prop: 'createTime', label: t('feedback.time'), width: 180, formatter: (row) => formatTime(row.createTime) },
    { prop: 'content', label: t('feedback.content'), minWidth: 320, showOverflowTooltip: true },
    { prop: 'contact', label: t('feedback.contact'), width: 160 },
    {
      prop: 'attachments',
      label: t('feedback.attachments'),
      minWidth: 200,
      render: (row) =>
        row.attachments.length ? (
          <Space size={[8, 0]} wrap data-testid="feedback-attachments">
            {row.attachments.map((a) => (
              <a key={a.key} href={a.url} target="_blank" rel="noopener noreferrer">
                {a.name}
              </a>
            ))}
          </Space>
        ) : (
          BLANK
        ),
    },
  ];

  return (
    <div className="fd-detail-page" data-testid="feedback-page">
      <ModuleCard title={t('feedback.formTitle')}>
        <Form<FeedbackForm> form={form} layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap onFinish={(v) => void onFinish(v)} className="fd-feedback-form" requiredMark>
          <Form.Item
            name="content"
            label={t('feedback.content')}
            rules={[
              { required: true, whitespace: true, message: t('feedback.contentRequired') },
              { max: FEEDBACK_MAX, message: t('feedback.contentTooLong', { max: FEEDBACK_MAX }) },
            ]}
          >
            <Input.TextArea autoSize={{ minRows: 4, maxRows: 8 }} maxLength={FEEDBACK_MAX} showCount placeholder={t('feedback.contentPlaceholder')} data-testid="feedback-content" />
          </Form.Item>
          <Form.Item
            name="contact"
            label={t('feedback.contact')}
            rules={[
              { max: CONTACT_MAX, message: t('feedback.contactTooLong', { max: CONTACT_MAX }) },
              { validator: (_, v?: string) => (!v?.trim() || isPhoneOrEmail(v) ? Promise.resolve() : Promise.reject(new Error(t('feedback.contactInvalid')))) },
            ]}
          >
            <Input maxLength={CONTACT_MAX} placeholder={t('feedback.contactPlaceholder')} data-testid="feedback-contact" />
          </Form.Item>
          <Form.Item name="attachments" label={t('feedback.attachments')} extra={t('feedback.attachmentsHint')}>
            <UploadControl
              key={uploaderKey}
              upload={uploadFeedbackFile}
              types={[...FEEDBACK_ATTACHMENTS.types]}
              maxSizeMb={FEEDBACK_ATTACHMENTS.maxSizeMb}
              limit={FEEDBACK_ATTACHMENTS.limit}
              multiple
              pictureCard
              onBusyChange={onBusyChange}
            />
          </Form.Item>
          {/* Under the fields, past the 105 px labels. */}
          <Form.Item label=" " colon={false}>
            <Button type="primary" htmlType="submit" loading={submit.isPending} data-testid="feedback-submit">
              {t('feedback.submit')}
            </Button>
          </Form.Item>
        </Form>
      </ModuleCard>
      <ModuleCard title={t('feedback.mine')}>
        <LoadErrorBanner error={error} onRetry={() => void refetch()} />
        <div data-testid="feedback-list">
          <PaginatedTable<Feedback>
            rowKey="id"
            showIndex
            columns={columns}
            data={data?.list ?? []}
            total={data?.total ?? 0}
            loading={isFetching}
            page={page}
            size={size}
            onPageChange={(p, s) => {
              setPage(p);
              setSize(s);
            }}
          />
        </div>
      </ModuleCard>
    </div>
  );
}
