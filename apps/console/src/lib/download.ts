/**
 * File downloads from the gateway: a route answers either the file itself
 * (with `Content-Disposition`) or the usual envelope with a signed `url`.
 * Either way the browser saves the file; a refused call fails like any other.
 */
import { ApiError, Code, sessionHeaders } from './api-client';
import { i18n } from './i18n';
import { toastError } from './notify';

/** The file name of a `Content-Disposition` header (RFC 5987 `filename*` first). */
export function fileNameOf(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition);
  if (star) return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  return plain ? plain[1].trim() : fallback;
}

function save(href: string, name?: string) {
  const a = document.createElement('a');
  a.href = href;
  a.rel = 'noopener';
  if (name) a.download = name;
  else a.target = '_blank';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/** GETs `path` with the session and saves what it answers. */
export async function downloadFrom(path: string, fallbackName: string): Promise<void> {
  const response = await fetch(path, { headers: sessionHeaders() });
  const type = response.headers.get('Content-Type') ?? '';
  if (type.includes('application/json')) {
    const envelope = (await response.json()) as { code?: number; msg?: string; data?: { url?: string } };
    if (envelope.code === Code.Ok && envelope.data?.url) return save(envelope.data.url);
    const text = envelope.code === Code.NoPermission ? i18n.t('request.noPermission') : envelope.msg || i18n.t('request.abnormal');
    toastError(text);
    throw new ApiError(Number(envelope.code) || Code.Network, text);
  }
  if (!response.ok) {
    toastError(i18n.t('request.serviceError'));
    throw new ApiError(Code.Internal, i18n.t('request.serviceError'));
  }
  const url = URL.createObjectURL(await response.blob());
  save(url, fileNameOf(response.headers.get('Content-Disposition'), fallbackName));
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
