import type { PageTable } from '@/lib/page-table';

/** 财务管理 by route name: no page is built yet, so every route shows 即将上线. */
export const pages: PageTable = {};
