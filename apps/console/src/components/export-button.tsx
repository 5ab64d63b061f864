import { ExportOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CLICK_DEBOUNCE_MS } from '@/config/constants';
import { ApiError, Code, isTransportFailure, type CallOptions } from '@/lib/api-client';
import { toastError, toastSuccess } from '@/lib/notify';

/** Export records' query key (the records page refreshes when an export starts). */
export const EXPORT_RECORDS_KEY = ['export-records'] as const;

export interface ExportButtonProps {
  /** Starts the export: POSTs the list's current filters to its export route. */
  startExport: (options: CallOptions) => Promise<unknown>;
  disabled?: boolean;
  text?: string;
}

/**
 * What a failed export says: the server's own msg, else 导出失败. The client's
 * fallbacks (请求数据异常, 服务异常…) are not the export's reason, so they are not
 * shown; a missing permission keeps the catalogue's text (console spec §8).
 */
export function exportFailureMessage(err: unknown, failed: string): string {
  if (err instanceof ApiError) {
    if (err.code === Code.NoPermission) return err.message;
    return (!isTransportFailure(err) && err.serverMessage) || failed;
  }
  return (err instanceof Error && err.name !== 'TypeError' && err.message) || failed;
}

/**
 * The export button of every list: the server starts a job and
 * answers at once, so success says where the file will be
 * (导出结果请到右上方个人信息下【导出记录】中查看下载结果); a failure shows the
 * server's reason, or 导出失败 (console spec §7).
 */
export function ExportButton({ startExport, disabled, text }: ExportButtonProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const last = useRef(0);
  const run = async () => {
    const now = Date.now();
    if (busy || now - last.current < CLICK_DEBOUNCE_MS) return;
    last.current = now;
    setBusy(true);
    try {
      await startExport({ silent: true });
      toastSuccess(t('exportButton.started'));
      void client.invalidateQueries({ queryKey: EXPORT_RECORDS_KEY });
    } catch (err) {
      toastError(exportFailureMessage(err, t('exportButton.failed')));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button icon={<ExportOutlined />} loading={busy} disabled={disabled} onClick={() => void run()} data-testid="export-button">
      {text ?? t('exportButton.export')}
    </Button>
  );
}
