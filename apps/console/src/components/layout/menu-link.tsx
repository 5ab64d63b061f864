import type { MouseEvent, ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useAccess } from '@/lib/auth';

/** Opens a menu entry: pages on the needs-open list go to a new browser tab. */
export function useOpenMenuPath() {
  const navigate = useNavigate();
  const { access } = useAccess();
  return (path: string) => {
    const route = access?.byPath.get(path);
    const target = route && route.children.length ? access?.landing(route) : path;
    if (!target || !route) return;
    if (access?.opensInNewTab(route)) window.open(target, '_blank', 'noopener');
    else navigate(target);
  };
}

export function MenuLink({ path, children, onOpen, className }: { path: string; children: ReactNode; onOpen?: () => void; className?: string }) {
  const open = useOpenMenuPath();
  return (
    <a
      href={path}
      className={className}
      onClick={(e: MouseEvent) => {
        if (e.ctrlKey || e.metaKey) return;
        e.preventDefault();
        onOpen?.();
        open(path);
      }}
    >
      {children}
    </a>
  );
}
