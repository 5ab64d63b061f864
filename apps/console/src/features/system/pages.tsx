import { lazy, Suspense, type ReactNode } from 'react';
import type { ResolvedRoute } from '@/lib/access';
import { ComingSoon } from '@/components/coming-soon';
import { PageLoading } from '@/components/page-loading';

const LoginLogPage = lazy(() => import('./routes/login-log'));
const OrgManagementPage = lazy(() => import('./routes/org-management'));
const RoleManagementPage = lazy(() => import('./routes/role-management'));
const UserManagementPage = lazy(() => import('./routes/user-management'));
const OperationManualPage = lazy(() => import('./routes/operation-manual'));
const FeedbackPage = lazy(() => import('./routes/feedback'));
const OnlineCustomerPage = lazy(() => import('./routes/online-customer'));

/** The pages built so far, by route name; the hidden add routes open their list with the add dialog. */
function page(name: string): ReactNode {
  switch (name) {
    case 'loginLog':
      return <LoginLogPage />;
    case 'orgManagement':
      return <OrgManagementPage />;
    case 'addOrg':
      return <OrgManagementPage startAdding />;
    case 'roleManagement':
      return <RoleManagementPage />;
    case 'userManagement':
      return <UserManagementPage />;
    case 'addUser':
      return <UserManagementPage startAdding />;
    case 'operationManual':
      return <OperationManualPage />;
    case 'feedback':
      return <FeedbackPage />;
    case 'onlineCustomer':
      return <OnlineCustomerPage />;
    default:
      return undefined;
  }
}

/** Pages of this domain, loaded as one lazy chunk. Pages not built yet show 'coming soon'. */
export default function Pages({ route }: { route: ResolvedRoute }) {
  const built = page(route.name);
  if (built) return <Suspense fallback={<PageLoading />}>{built}</Suspense>;
  return <ComingSoon title={route.meta.title} />;
}
