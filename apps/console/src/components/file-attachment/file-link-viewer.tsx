// The file-link viewer: a button that fetches a file's short-lived signed link and
// shows the file (images in the image viewer, other files in a new tab), opening
// 100 ms after the link arrives. Without the file permission the button is
// disabled and reads 暂无文件访问权限. A domain page writes:
//
//   <FileLinkViewer permission="as:maintain:file" fetchLink={() => repairOrderFileLink(order.id, key)}>
//     {file.name}
//   </FileLinkViewer>
//
// (`permission` defaults to '*', everyone; `fetchLink` must fetch a fresh link,
// since links live 10 minutes).
import { Button, type ButtonProps } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ImageViewer, type ViewerImage } from '@/components/image-viewer';
import { hasPermission } from '@/lib/access';
import { useAccess } from '@/lib/auth';
import { FILE_PERMISSION_ANYONE, VIEWER_OPEN_DELAY_MS, fileNameOfLink, isImageLink, type FileLink } from './file-links';

export interface FileLinkViewerProps {
  /** Fetches a fresh signed link of the file. */
  fetchLink: () => Promise<FileLink>;
  /** The permission that grants access to the file; '*' (everyone) by default. */
  permission?: string;
  /** The button's text (the file's name); 查看文件 by default. */
  children?: ReactNode;
  type?: ButtonProps['type'];
}

/** May the user open files guarded by `permission`? ('*' needs nothing.) */
export function useFileAccess(permission: string = FILE_PERMISSION_ANYONE): boolean {
  const { principal } = useAccess();
  return hasPermission(permission, principal?.permissions ?? new Set<string>());
}

/** Opens a file that is not an image where the browser shows it: a new tab. */
function openInNewTab(url: string) {
  window.open(url, '_blank', 'noopener,noreferrer');
}

export function FileLinkViewer({ fetchLink, permission = FILE_PERMISSION_ANYONE, children, type = 'link' }: FileLinkViewerProps) {
  const { t } = useTranslation();
  const allowed = useFileAccess(permission);
  const [image, setImage] = useState<ViewerImage | null>(null);
  const opening = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const link = useMutation({ mutationFn: fetchLink });
  useEffect(() => () => clearTimeout(opening.current), []);

  if (!allowed) {
    return (
      <Button type={type} disabled autoInsertSpace={false}>
        {t('fileAttachment.noPermission')}
      </Button>
    );
  }

  const view = async () => {
    let fetched: FileLink;
    try {
      fetched = await link.mutateAsync();
    } catch {
      return; // the request already said why
    }
    clearTimeout(opening.current);
    opening.current = setTimeout(() => {
      if (isImageLink(fetched)) setImage({ src: fetched.url, title: fetched.name || fileNameOfLink(fetched.url) });
      else openInNewTab(fetched.url);
    }, VIEWER_OPEN_DELAY_MS);
  };

  return (
    <>
      <Button type={type} loading={link.isPending} onClick={() => void view()} autoInsertSpace={false}>
        {children ?? t('fileAttachment.view')}
      </Button>
      {image && <ImageViewer images={[image]} open onClose={() => setImage(null)} />}
    </>
  );
}
