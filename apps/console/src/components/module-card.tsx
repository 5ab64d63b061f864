import { Card } from 'antd';
import type { ReactNode } from 'react';

/** Titled module wrapper used by detail pages. */
export function ModuleCard({ title, extra, children }: { title: ReactNode; extra?: ReactNode; children: ReactNode }) {
  return (
    <Card className="fd-module" variant="borderless" title={<span className="fd-module__title">{title}</span>} extra={extra}>
      {children}
    </Card>
  );
}
