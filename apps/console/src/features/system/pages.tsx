import { lazy, Suspense } from 'react';
import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';
import { PageLoading } from '@/components/page-loading';

const LoginLogPage = lazy(() => import('./routes/login-log'));

/** Pages of this domain, loaded as one lazy chunk. Pages not built yet show 'coming soon'. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  if (route.name === 'loginLog') {
    return (
      <Suspense fallback={<PageLoading />}>
        <LoginLogPage />
      </Suspense>
    );
  }
  return <ComingSoon title={route.meta.title} />;
}
