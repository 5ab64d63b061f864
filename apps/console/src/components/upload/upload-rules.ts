/** Upload checks of console spec §5/§8/§9, as pure functions returning i18n messages. */

export const DEFAULT_FILE_LIMIT = 10;
export const LARGE_FILE_MB = 5;
export const LOADING_RELEASE_MS = 1_000;
export const MESSAGE_DELAY_MS = 1_000;
export const IMAGE_TYPES = ['png', 'jpeg', 'jpg', 'webp', 'gif'];
export const IMPORT_TYPES = ['xls', 'xlsx'];
export const IMPORT_MAX_MB = 10;

export interface UploadMessage {
  key: string;
  params?: Record<string, string | number>;
}

export interface FileRules {
  /** Allowed extensions, without dots; empty allows any. */
  types?: string[];
  /** Size limit in MB. */
  maxSizeMb?: number;
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Under 1 MB the limit reads in kb. */
export function sizeLimitMessage(maxSizeMb: number): UploadMessage {
  return maxSizeMb < 1
    ? { key: 'upload.tooLargeKb', params: { size: Math.round(maxSizeMb * 1024) } }
    : { key: 'upload.tooLarge', params: { size: maxSizeMb } };
}

/** Name present and without ',' or '+', extension allowed, size under the limit. */
export function checkFile(file: { name: string; size: number }, rules: FileRules): UploadMessage | undefined {
  if (!file.name || /[,+]/.test(file.name)) return { key: 'upload.badName' };
  if (rules.types?.length && !rules.types.map((t) => t.toLowerCase()).includes(extensionOf(file.name))) {
    return { key: 'upload.badType', params: { types: rules.types.join('、') } };
  }
  if (rules.maxSizeMb !== undefined && file.size / 1024 / 1024 >= rules.maxSizeMb) return sizeLimitMessage(rules.maxSizeMb);
  return undefined;
}

/** Choosing more than the limit warns with limit, count chosen and total. */
export function checkCount(limit: number, chosen: number, existing: number): UploadMessage | undefined {
  return chosen + existing > limit ? { key: 'upload.tooMany', params: { limit, chosen, total: chosen + existing } } : undefined;
}

/** The same file (name and size) again is refused. */
export function isDuplicate(file: { name: string; size?: number }, uploaded: { name: string; size?: number }[]): boolean {
  return uploaded.some((u) => u.name === file.name && (u.size === undefined || file.size === undefined || u.size === file.size));
}

/** Loading text: large files ask for patience. */
export function uploadingMessage(sizeBytes: number): UploadMessage {
  const mb = sizeBytes / 1024 / 1024;
  return mb >= LARGE_FILE_MB ? { key: 'upload.large', params: { n: Math.round(mb) } } : { key: 'upload.uploading' };
}

export type FileStatus = 'ready' | 'uploading' | 'success' | 'error';

/** The overlay stays while any file is ready or uploading. */
export function isBusy(statuses: FileStatus[]): boolean {
  return statuses.some((s) => s === 'ready' || s === 'uploading');
}

/** Manual submit: nothing chosen, or files still on the way (forms and dialogs refuse then). */
export function submitCheck(statuses: FileStatus[]): UploadMessage | undefined {
  if (statuses.length === 0) return { key: 'upload.selectFirst' };
  if (isBusy(statuses)) return { key: 'upload.inProgress' };
  return undefined;
}
