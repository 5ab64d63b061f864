import { lazy, Suspense } from 'react';
import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';
import { PageLoading } from '@/components/page-loading';

const DownloadRecordPage = lazy(() => import('./routes/download-record'));

/** Pages of this domain, loaded as one lazy chunk. Pages not built yet show 'coming soon'. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  if (route.name === 'downloadRecord') {
    return (
      <Suspense fallback={<PageLoading />}>
        <DownloadRecordPage />
      </Suspense>
    );
  }
  return <ComingSoon title={route.meta.title} />;
}
