import type { PageTable } from '@/lib/page-table';

/** Notices and approvals by route name, each page its own chunk. */
export const pages: PageTable = {
  notice: () => import('./routes/notice-list'),
  noticeDetails: () => import('./routes/notice-detail'),
  approve: () => import('./routes/approval-list'),
  approveDetails: () => import('./routes/approval-detail'),
};
