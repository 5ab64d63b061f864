import { PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { Button, Spin, Upload, type UploadFile, type UploadProps } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, isTransportFailure } from '@/lib/api-client';
import { toastError, toastSuccess, toastWarning } from '@/lib/notify';
import {
  checkCount, checkFile, DEFAULT_FILE_LIMIT, isBusy, isDuplicate, LOADING_RELEASE_MS, MESSAGE_DELAY_MS, uploadingMessage,
  type FileRules, type FileStatus, type UploadMessage,
} from './upload-rules';

export interface FileItem {
  name: string;
  url: string;
  saveUrl?: string;
}

export interface UploadControlProps extends FileRules {
  value?: FileItem[];
  onChange?: (files: FileItem[]) => void;
  /** Sends one file; resolves with its stored location, rejects with a message on failure. */
  upload: (file: File, onProgress: (percent: number) => void) => Promise<FileItem>;
  limit?: number;
  multiple?: boolean;
  pictureCard?: boolean;
  /** Read-only detail mode. */
  detail?: boolean;
  /** Extra check before sending; return a message to refuse. */
  beforeUpload?: (file: File) => string | undefined;
  buttonText?: string;
  /** Told whether files are still on the way (a form refuses to submit meanwhile). */
  onBusyChange?: (busy: boolean) => void;
}

/**
 * Spec §8's upload failure texts: a transport failure (no answer, a time-out, a
 * 5xx) says 上传失败，请重新上传; a business refusal says the server's msg, or
 * 上传失败 when it gave none. A custom uploader may reject with its own message.
 */
export function uploadFailureMessage(error: unknown, t: (key: string) => string): string {
  if (error instanceof ApiError) {
    if (isTransportFailure(error)) return t('upload.transportFailed');
    return error.serverMessage || t('upload.failed');
  }
  if (error instanceof Error && error.message && error.name !== 'TypeError') return error.message;
  return t('upload.transportFailed');
}

/** Tells whether an upload control still has files on the way (forms refuse to submit then). */
export function hasPendingUploads(files: UploadFile[]): boolean {
  return isBusy(files.map((f) => (f.status === 'done' ? 'success' : f.status === 'error' ? 'error' : f.status === 'uploading' ? 'uploading' : 'ready')) as FileStatus[]);
}

/** Upload control with the name, type, size, count, duplicate and in-progress rules of console spec §5. */
export function UploadControl({ value = [], onChange, upload, limit = DEFAULT_FILE_LIMIT, multiple, pictureCard, detail, beforeUpload, buttonText, types, maxSizeMb, onBusyChange }: UploadControlProps) {
  const { t } = useTranslation();
  const [files, setFiles] = useState<UploadFile[]>(() => value.map((v, i) => ({ uid: `init-${i}`, name: v.name, url: v.url, status: 'done' })));
  const [loading, setLoading] = useState<UploadMessage | null>(null);
  const release = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const say = (m: UploadMessage) => t(m.key, m.params);
  const later = (fn: () => void) => setTimeout(fn, MESSAGE_DELAY_MS);

  const busy = hasPendingUploads(files);
  // Braces: an effect may return only its clean-up, never the callback's value.
  useEffect(() => {
    onBusyChange?.(busy);
  }, [busy, onBusyChange]);

  useEffect(() => {
    clearTimeout(release.current);
    if (hasPendingUploads(files)) return;
    release.current = setTimeout(() => setLoading(null), LOADING_RELEASE_MS);
    return () => clearTimeout(release.current);
  }, [files]);

  const emit = (list: UploadFile[]) =>
    onChange?.(list.filter((f) => f.status === 'done' && f.url).map((f) => ({ name: f.name, url: f.url as string, saveUrl: (f.response as FileItem | undefined)?.saveUrl })));

  const props: UploadProps = {
    fileList: files,
    multiple,
    // The picker offers only the allowed types; the rules (and the server) still check.
    accept: types?.length ? types.map((type) => `.${type}`).join(',') : undefined,
    disabled: detail,
    listType: pictureCard ? 'picture-card' : 'text',
    showUploadList: { showRemoveIcon: !detail },
    beforeUpload: (file, chosen) => {
      // Too many chosen: the whole choice is refused, with one warning.
      const countError = checkCount(limit, chosen.length, files.length);
      if (countError) {
        if (chosen.indexOf(file) === 0) toastWarning(say(countError));
        return Upload.LIST_IGNORE;
      }
      if (isDuplicate(file, files.map((f) => ({ name: f.name, size: f.size })))) {
        toastWarning(t('upload.duplicate'));
        return Upload.LIST_IGNORE;
      }
      const ruleError = checkFile(file, { types, maxSizeMb });
      const hookError = ruleError ? undefined : beforeUpload?.(file);
      if (ruleError || hookError) {
        toastError(ruleError ? say(ruleError) : (hookError as string));
        return Upload.LIST_IGNORE;
      }
      setLoading(uploadingMessage(file.size));
      return true;
    },
    customRequest: ({ file, onProgress, onSuccess, onError }) => {
      upload(file as File, (percent) => onProgress?.({ percent })).then(
        (item) => {
          onSuccess?.(item);
          later(() => toastSuccess(t('upload.success')));
        },
        (err: unknown) => {
          onError?.(err as Error);
          later(() => toastError(uploadFailureMessage(err, t)));
        },
      );
    },
    onChange: ({ fileList }) => {
      // Failed files leave the list; finished ones take their stored address.
      const next = fileList
        .filter((f) => f.status !== 'error')
        .map((f) => (f.status === 'done' && f.response && !f.url ? { ...f, url: (f.response as FileItem).url } : f));
      setFiles(next);
      if (fileList.every((f) => f.status !== 'uploading')) emit(next);
    },
    onRemove: (file) => {
      const next = files.filter((f) => f.uid !== file.uid);
      setFiles(next);
      emit(next);
      return true;
    },
  };

  const atLimit = files.length >= limit;
  return (
    <Spin spinning={loading !== null} description={loading ? say(loading) : undefined}>
      <Upload {...props}>
        {pictureCard ? (
          atLimit || detail ? null : (
            <div className="fd-upload__card">
              <PlusOutlined />
              <div>{buttonText ?? t('upload.choose')}</div>
            </div>
          )
        ) : detail ? null : (
          <Button icon={<UploadOutlined />} disabled={atLimit}>
            {buttonText ?? t('upload.choose')}
          </Button>
        )}
      </Upload>
    </Spin>
  );
}
