// The file-attachment dialog: uploads files for one `purpose` (the server's types
// and size limit: feedback, import, avatar) through the shared upload control and
// hands back the stored files on confirm. It refuses to close or confirm while a
// file is still uploading, and to confirm with no file. A domain page writes:
//
//   <AttachmentDialog open={open} purpose="feedback" value={files} limit={5}
//     onCancel={() => setOpen(false)} onConfirm={(files) => save(attachmentKeysOf(files))} />
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { UploadControl, type FileItem } from '@/components/upload/upload-control';
import { DEFAULT_FILE_LIMIT } from '@/components/upload/upload-rules';
import { uploaderFor, type UploadPurpose } from '@/lib/files';
import { toastWarning } from '@/lib/notify';

/** As wide as the bulk-import dialog: room for the file list. */
export const ATTACHMENT_DIALOG_WIDTH = 650;

export interface AttachmentDialogProps {
  open: boolean;
  /** What the files are for; the server checks its types and size limit. */
  purpose: UploadPurpose;
  title?: string;
  /** Files already attached (shown, removable). */
  value?: FileItem[];
  limit?: number;
  /** Allowed extensions and size limit checked before sending (the server checks again). */
  types?: string[];
  maxSizeMb?: number;
  pictureCard?: boolean;
  onCancel: () => void;
  /** The attached files; a rejected promise keeps the dialog open. */
  onConfirm: (files: FileItem[]) => unknown;
}

export function AttachmentDialog({ open, purpose, title, value, limit = DEFAULT_FILE_LIMIT, types, maxSizeMb, pictureCard, onCancel, onConfirm }: AttachmentDialogProps) {
  const { t } = useTranslation();
  const [files, setFiles] = useState<FileItem[]>(value ?? []);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) {
      setFiles(value ?? []);
      setBusy(false);
    }
    // Only when opening: `value` is what the dialog starts with.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  const onBusyChange = useCallback((next: boolean) => setBusy(next), []);

  const cancel = () => {
    if (busy) return toastWarning(t('upload.inProgress'));
    onCancel();
  };
  const confirm = async () => {
    if (busy) {
      toastWarning(t('upload.inProgress'));
      throw new Error('uploading');
    }
    if (files.length === 0) {
      toastWarning(t('upload.selectFirst'));
      throw new Error('no file');
    }
    await onConfirm(files);
  };

  return (
    <AppDialog open={open} title={title ?? t('fileAttachment.title')} width={ATTACHMENT_DIALOG_WIDTH} onCancel={cancel} onConfirm={confirm} destroyOnHidden>
      <UploadControl
        value={value}
        onChange={setFiles}
        upload={uploaderFor(purpose)}
        limit={limit}
        multiple={limit > 1}
        types={types}
        maxSizeMb={maxSizeMb}
        pictureCard={pictureCard}
        onBusyChange={onBusyChange}
      />
    </AppDialog>
  );
}
