import type { PageTable } from '@/lib/page-table';

/** The account's pages by route name, each its own chunk; 我的优惠券 is finance's page. */
export const pages: PageTable = {
  downloadRecord: () => import('./routes/download-record'),
  myCoupons: () => import('@/features/finance/routes/my-coupons'),
};
