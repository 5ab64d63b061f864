import { lazy, Suspense } from 'react';
import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';
import { PageLoading } from '@/components/page-loading';

const pages = {
  notice: lazy(() => import('./routes/notice-list')),
  noticeDetails: lazy(() => import('./routes/notice-detail')),
  approve: lazy(() => import('./routes/approval-list')),
  approveDetails: lazy(() => import('./routes/approval-detail')),
};

/** Notices and approvals, each page its own lazy chunk. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  const Page = pages[route.name as keyof typeof pages];
  if (!Page) return <ComingSoon title={route.meta.title} />;
  return (
    <Suspense fallback={<PageLoading />}>
      <Page />
    </Suspense>
  );
}
