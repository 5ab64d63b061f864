/**
 * File uploads (`POST /api/v1/files`, multipart `file` + `purpose`): the gateway
 * stores the file and answers its key and a signed download link.
 */
import type { FileItem } from '@/components/upload/upload-control';
import { IMAGE_TYPES } from '@/components/upload/upload-rules';
import { postForm, type ApiData } from './api-client';

export type UploadedFile = ApiData<'/api/v1/files', 'post'>;

/**
 * What an upload is for; each purpose has its own types and size limit on the
 * server, and each kind of file its own purpose (the key says what it holds):
 * driver ID and licence images, risk evidence (alarm handling, accident
 * photos), documents (images and PDF).
 */
export type UploadPurpose = 'feedback' | 'import' | 'avatar' | 'driver' | 'evidence' | 'document';

/** Feedback attachments: images under 5 MB, at most 10 (the gateway's feedback purpose). */
export const FEEDBACK_ATTACHMENTS = { types: IMAGE_TYPES, maxSizeMb: 5, limit: 10 } as const;

/** Documents of a record: images and PDF under 10 MB (the gateway's document purpose). */
export const DOCUMENT_ATTACHMENTS = { types: [...IMAGE_TYPES, 'pdf'], maxSizeMb: 10, limit: 10 } as const;

/** Sends one file; the failure message is the server's (the control shows it). */
export function uploadFile(file: File, purpose: UploadPurpose): Promise<UploadedFile> {
  return postForm('/api/v1/files', { file, purpose }, { silent: true });
}

/** The upload control's entry for a stored file: its link to show, its key to save. */
export function fileItemOf(uploaded: UploadedFile): FileItem {
  return { name: uploaded.name, url: uploaded.url, saveUrl: uploaded.key };
}

/** An upload function for the shared control, bound to one purpose. */
export const uploaderFor =
  (purpose: UploadPurpose) =>
  async (file: File, onProgress: (percent: number) => void): Promise<FileItem> => {
    const item = fileItemOf(await uploadFile(file, purpose));
    onProgress(100);
    return item;
  };

/** The keys the gateway gave the uploaded files, in order (what a form sends). */
export function attachmentKeysOf(files: FileItem[] | undefined): string[] {
  return (files ?? []).map((f) => f.saveUrl).filter((key): key is string => !!key);
}
