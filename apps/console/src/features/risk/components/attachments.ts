/** Attachments of a handling or a remark: images uploaded through the shared control. */
import type { FileItem } from '@/components/upload/upload-control';
import { FEEDBACK_ATTACHMENTS, type UploadPurpose } from '@/lib/files';
import type { components } from '@/lib/api/schema';

/** Risk evidence (alarm handling and remarks, accident photos): images under 5 MB. */
export const ATTACHMENT_PURPOSE: UploadPurpose = 'evidence';
export const ATTACHMENT_RULES = { types: [...FEEDBACK_ATTACHMENTS.types], maxSizeMb: FEEDBACK_ATTACHMENTS.maxSizeMb, limit: 5 };

/** The uploaded files as the API names them (their stored keys). */
export function fileRefsOf(files: FileItem[] | undefined): components['schemas']['FileRefBody'][] {
  return (files ?? []).filter((f) => !!f.saveUrl).map((f) => ({ key: f.saveUrl as string, name: f.name, contentType: '', sizeBytes: 0 }));
}
