import type { PageTable } from '@/lib/page-table';
import { Workbench } from './workbench';

/** The workbench by route name; already in this chunk, so the landing page needs no second request. */
export const pages: PageTable = {
  dashboard: () => Promise.resolve({ default: Workbench }),
};
