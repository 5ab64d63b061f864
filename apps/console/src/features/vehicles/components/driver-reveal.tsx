/** A driver's server-masked values with the shared eye toggle, and its images through the file-link viewer, each revealed through the driver's own endpoint. */
import { App } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { FileLinkViewer } from '@/components/file-attachment/file-link-viewer';
import type { FileLink } from '@/components/file-attachment/file-links';
import { SensitiveReveal } from '@/components/sensitive-reveal';
import { SENSITIVE_VIEW_PERMISSION } from '@/lib/sensitive';
import { revealDriver } from '../api/drivers';

/** The module named in the sensitive-view audit for driver values. */
export const DRIVER_SOURCE_MODULE = 'driver';

export interface DriverRevealProps {
  driverId: string;
  /** The value as the server sent it: masked text, or an image's name. */
  masked: string | null | undefined;
  /** Sensitive view type of docs/console-spec.md §3 (1 phone, 2 ID number, 4/5 ID card, 6/7 licence, 8 address). */
  sensitiveType: number;
  /** How a revealed value shows (images: the file key); text by default. */
  renderValue?: (value: string) => ReactNode;
  /** Shown for no value ('--' in the list, '-' in the detail). */
  blank?: string;
}

/**
 * `SensitiveReveal` (debounced, images ask first, masked only without
 * `as:sensitive:view`) through `POST /drivers/{id}/reveal`: one call, one
 * audit row naming this page.
 */
export function DriverReveal({ driverId, masked, sensitiveType, renderValue, blank }: DriverRevealProps) {
  return (
    <SensitiveReveal
      masked={masked}
      sensitiveType={sensitiveType}
      subjectId={driverId}
      renderValue={renderValue}
      blank={blank}
      reveal={(pageUrl) => revealDriver(driverId, { sensitiveType, pageUrl, sourceModule: DRIVER_SOURCE_MODULE })}
    />
  );
}

export interface DriverImageProps {
  driverId: string;
  /** The image's name as the server sent it (no key); empty when there is none. */
  name: string | null | undefined;
  /** 4/5 ID card front/back, 6/7 licence front/back. */
  sensitiveType: number;
  blank: string;
}

/**
 * An ID card or licence image through the file-link viewer: without
 * `as:sensitive:view` the button is disabled and reads 暂无文件访问权限; with it,
 * opening asks first (the view is recorded), reveals through the driver's
 * endpoint (one audit row) and shows the image from the signed link it answers.
 */
export function DriverImage({ driverId, name, sensitiveType, blank }: DriverImageProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const location = useLocation();
  if (!name) return <span>{blank}</span>;
  const fetchLink = () =>
    new Promise<FileLink>((resolve, reject) => {
      modal.confirm({
        title: t('mask.confirmTitle'),
        content: t('mask.confirmText'),
        onOk: async () => {
          try {
            const pageUrl = location.pathname + location.search;
            const answer = await revealDriver(driverId, { sensitiveType, pageUrl, sourceModule: DRIVER_SOURCE_MODULE });
            if (answer.url) resolve({ url: answer.url, name });
            else reject(new Error('no link'));
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        },
        onCancel: () => reject(new Error('cancelled')),
      });
    });
  return (
    <FileLinkViewer permission={SENSITIVE_VIEW_PERMISSION} fetchLink={fetchLink}>
      <span data-testid="driver-image">{name}</span>
    </FileLinkViewer>
  );
}
