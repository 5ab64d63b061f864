// Signed file links for the file-link viewer: how long after the link arrives the
// viewer opens, which links are images (shown in the image viewer; the rest open
// in a new tab), and a link fetcher for the one record kind whose file is fetched
// on demand today (finished exports). A domain page passes the viewer a function
// that fetches a fresh link for its own record (links live 10 minutes).
import { IMAGE_TYPES, extensionOf } from '@/components/upload/upload-rules';
import { api } from '@/lib/api-client';

/** The viewer opens this long after the address arrived. */
export const VIEWER_OPEN_DELAY_MS = 100;
/** The permission that grants file access unless a page names another: everyone. */
export const FILE_PERMISSION_ANYONE = '*';

/** A short-lived signed address of a stored file, as the gateway issues it. */
export interface FileLink {
  url: string;
  name?: string;
  contentType?: string;
}

/** The file name a signed link names: the last segment of its `key` (or of its path). */
export function fileNameOfLink(url: string): string {
  const [path, query = ''] = url.split('?');
  const key = new URLSearchParams(query).get('key') ?? path;
  return key.split('/').pop() ?? '';
}

/** Images (by type, or by the extension of the name) open in the image viewer. */
export function isImageLink(link: FileLink): boolean {
  if (link.contentType) return link.contentType.startsWith('image/');
  return IMAGE_TYPES.includes(extensionOf(link.name || fileNameOfLink(link.url)));
}

/** A fresh link to a finished export's file (the export record's download). */
export function exportFileLink(id: string): Promise<FileLink> {
  return api.get('/api/v1/export-records/{id}/file', { params: { path: { id } } });
}
