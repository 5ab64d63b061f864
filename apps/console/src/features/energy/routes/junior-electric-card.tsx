import { useOrgTreeOptions } from '@/lib/org-options';
import { PageLoading } from '@/components/page-loading';
import '../messages';
import { CardList } from '../components/card-list';

/**
 * 下级充电卡 (juniorElectricCard): the cards of the organisations below a chosen
 * one, by default below the top of the user's organisation tree.
 */
export default function JuniorElectricCardPage() {
  const orgs = useOrgTreeOptions();
  const top = orgs[0]?.value;
  // The list starts from the top organisation, so it waits for the tree.
  if (!top) return <PageLoading />;
  return <CardList juniorOf={top} />;
}
