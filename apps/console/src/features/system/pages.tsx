import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';

/** Pages of this domain, loaded as one lazy chunk. Pages not built yet show 'coming soon'. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  return <ComingSoon title={route.meta.title} />;
}
