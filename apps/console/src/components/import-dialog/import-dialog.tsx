import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { Button, Spin, Table, Tooltip, Upload } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { uploadFailureMessage } from '@/components/upload/upload-control';
import { checkFile, IMPORT_MAX_MB, IMPORT_TYPES, uploadingMessage, type UploadMessage } from '@/components/upload/upload-rules';
import type { CallOptions } from '@/lib/api-client';
import { useHasPermission } from '@/lib/auth';
import { toastError, toastSuccess, toastWarning } from '@/lib/notify';
import { fileIdentity, importErrorTable, type ImportErrorTable } from './import-rules';

export const IMPORT_DIALOG_WIDTH = 650;

export interface ImportDialogProps {
  open: boolean;
  title: string;
  /** Sends the file; resolves with the number of rows written. */
  importFile: (file: File, options: CallOptions) => Promise<{ imported: number }>;
  /** Downloads the template (and says why when it cannot); the button shows only when given. */
  downloadTemplate?: () => Promise<unknown>;
  /** Permission the template download needs (default every user). */
  templatePermission?: string;
  onClose: () => void;
  /** After a successful import (refresh the list). */
  onImported: () => void;
}

type Phase = 'choose' | 'uploading' | 'errors';

/**
 * The bulk-import dialog of console spec §2/§4/§5: 650 px, one xls/xlsx file under 10 MB,
 * a template download gated by its permission, the same file refused a second
 * time, an uploading state that cannot be closed, the error table of a 4000
 * (nothing was written), and on success a toast, a refreshed list and closing.
 */
export function ImportDialog({ open, title, importFile, downloadTemplate, templatePermission = '*', onClose, onImported }: ImportDialogProps) {
  const { t } = useTranslation();
  const holdsPermission = useHasPermission(templatePermission);
  const mayDownload = templatePermission === '*' || holdsPermission;
  const [file, setFile] = useState<File | null>(null);
  const [phase, setPhase] = useState<Phase>('choose');
  const [loading, setLoading] = useState<UploadMessage>({ key: 'upload.uploading' });
  const [errors, setErrors] = useState<ImportErrorTable | null>(null);
  const [downloading, setDownloading] = useState(false);
  // Files already sent from this dialog: sending one again is refused (console spec §5).
  const sent = useRef(new Set<string>());
  const say = (m: UploadMessage) => t(m.key, m.params);

  const reset = () => {
    setFile(null);
    setErrors(null);
    setPhase('choose');
    sent.current.clear();
  };

  const close = () => {
    if (phase === 'uploading') return toastWarning(t('upload.inProgress'));
    reset();
    onClose();
  };

  const submit = async () => {
    if (phase === 'uploading') return toastWarning(t('upload.inProgress'));
    if (!file) return toastWarning(t('upload.selectFirst'));
    const identity = fileIdentity(file);
    if (sent.current.has(identity)) return toastWarning(t('upload.duplicate'));
    sent.current.add(identity);
    setLoading(uploadingMessage(file.size));
    setPhase('uploading');
    setErrors(null);
    try {
      const { imported } = await importFile(file, { silent: true, timeoutMs: 300_000 });
      toastSuccess(t('importDialog.success', { count: imported }));
      reset();
      onImported();
      onClose();
    } catch (err) {
      const table = importErrorTable(err);
      if (table) {
        setErrors(table);
        setPhase('errors');
      } else {
        // Not read by the server (transport, permission): the same file may go again.
        // Spec §8: a transport failure says 上传失败，请重新上传, a refusal its msg or 上传失败.
        sent.current.delete(identity);
        setPhase('choose');
        toastError(uploadFailureMessage(err, t));
      }
    }
  };

  const template = async () => {
    if (!downloadTemplate) return;
    setDownloading(true);
    try {
      await downloadTemplate();
    } catch {
      // The download has said why.
    } finally {
      setDownloading(false);
    }
  };

  const header = errors?.errorHeader ?? [];
  const errorColumns = [
    { key: 'row', dataIndex: 'row', title: header[0] || t('importDialog.row'), width: 90 },
    { key: 'column', dataIndex: 'column', title: header[1] || t('importDialog.column'), width: 160, render: (v: string) => v || '--' },
    { key: 'reason', dataIndex: 'reason', title: header[2] || t('importDialog.reason') },
  ];

  return (
    <AppDialog open={open} title={title} width={IMPORT_DIALOG_WIDTH} onCancel={close} onConfirm={submit} confirmText={t('importDialog.confirm')} destroyOnHidden>
      <div data-testid="import-dialog">
        {downloadTemplate && (
          <div className="fd-import__template">
            {mayDownload ? (
              <Button icon={<DownloadOutlined />} loading={downloading} onClick={() => void template()} data-testid="import-template">
                {t('importDialog.template')}
              </Button>
            ) : (
              <Tooltip title={t('importDialog.noTemplatePermission')}>
                <Button icon={<DownloadOutlined />} disabled data-testid="import-template">
                  {t('importDialog.noTemplatePermission')}
                </Button>
              </Tooltip>
            )}
          </div>
        )}
        <Spin spinning={phase === 'uploading'} description={say(loading)}>
          <Upload.Dragger
            accept={IMPORT_TYPES.map((x) => `.${x}`).join(',')}
            maxCount={1}
            disabled={phase === 'uploading'}
            fileList={file ? [{ uid: fileIdentity(file), name: file.name, size: file.size, status: 'done' }] : []}
            beforeUpload={(chosen) => {
              const problem = checkFile(chosen, { types: IMPORT_TYPES, maxSizeMb: IMPORT_MAX_MB });
              if (problem) toastError(say(problem));
              else {
                setFile(chosen);
                setPhase('choose');
              }
              return Upload.LIST_IGNORE;
            }}
            onRemove={() => setFile(null)}
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{t('importDialog.drop')}</p>
            <p className="ant-upload-hint">{t('importDialog.hint', { types: IMPORT_TYPES.join('、'), size: IMPORT_MAX_MB })}</p>
          </Upload.Dragger>
        </Spin>
        {errors && (
          <div className="fd-import__errors" data-testid="import-errors">
            <p className="fd-import__errors-title">{t('importDialog.errorsTitle', { count: errors.errorList.length })}</p>
            <Table
              size="small"
              rowKey={(e) => `${e.row}|${e.column}|${e.reason}`}
              columns={errorColumns}
              dataSource={errors.errorList}
              pagination={errors.errorList.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
            />
          </div>
        )}
      </div>
    </AppDialog>
  );
}
