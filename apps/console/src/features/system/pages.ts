import { withProps, type PageTable } from '@/lib/page-table';

const orgManagement = () => import('./routes/org-management');
const userManagement = () => import('./routes/user-management');

/** 系统设置 by route name, each page its own chunk; the hidden add routes open their list with the add dialog. */
export const pages: PageTable = {
  loginLog: () => import('./routes/login-log'),
  orgManagement,
  addOrg: withProps(orgManagement, { startAdding: true }),
  roleManagement: () => import('./routes/role-management'),
  userManagement,
  addUser: withProps(userManagement, { startAdding: true }),
  operationManual: () => import('./routes/operation-manual'),
  feedback: () => import('./routes/feedback'),
  onlineCustomer: () => import('./routes/online-customer'),
};
