import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { routeTree } from '@/config/routes';
import { computeAccess, filterMenu, flatten, normalizeFlags, principalOf, resolveTree, type Principal } from './access';

const catalogue: { value: string }[] = JSON.parse(readFileSync(join(__dirname, '../../../../services/org/src/permissions.json'), 'utf8'));
const everything = catalogue.map((p) => ({ permissionValue: p.value }));
const principal = (values: string[], flags: Parameters<typeof normalizeFlags>[0] = {}): Principal =>
  principalOf(values.map((permissionValue) => ({ permissionValue })), flags);
const topNames = (p: Principal) => computeAccess(routeTree, p).menu.map((m) => m.name);

describe('route table', () => {
  const all = flatten(resolveTree(routeTree));

  it('uses only permission values of the server catalogue', () => {
    const known = new Set(catalogue.map((p) => p.value));
    for (const route of all) {
      const values = [route.meta.permissionValue ?? []].flat().filter((v) => v !== '*');
      for (const v of values) expect(known, `${route.fullPath}: ${v}`).toContain(v);
    }
  });

  it('has unique paths and names', () => {
    expect(new Set(all.map((r) => r.fullPath)).size).toBe(all.length);
    expect(new Set(all.map((r) => r.name)).size).toBe(all.length);
  });

  it('holds the paths of console spec §2', () => {
    const paths = all.map((r) => r.fullPath);
    for (const p of [
      '/dashboard', '/carManagement/assetsData/carFiles', '/carManagement/assetsMonitor/quicklyFindCar', '/carManagement/riskControll/playback',
      '/financialManagement/orderManage', '/billCenter/invoiceManagement/companyManage', '/energyManagement/charge/chargeReconciliation',
      '/systemSetting/orgManagement', '/helpCenter/onlineCustomer', '/downloadRecord', '/myCoupons', '/notice', '/noticeDetails',
      '/approve', '/approveDetails', '/carFiles', '/chargeIntroduce',
    ]) {
      expect(paths).toContain(p);
    }
  });
});

describe('access (console spec §6)', () => {
  it('shows all five groups to a user holding every permission', () => {
    expect(topNames(principalOf(everything))).toEqual(['dashboard', 'carManagement', 'financialManagement', 'energyManagement', 'systemSetting']);
  });

  it('hides a group without its permission and refuses its pages', () => {
    const p = principal(['oss:pc:vehicle:management', 'as:sys:car', 'as:sys:org:getList']);
    const access = computeAccess(routeTree, p);
    expect(topNames(p)).toEqual(['dashboard', 'carManagement']);
    expect(access.canOpen('/systemSetting/orgManagement')).toBe(false);
    expect(access.canOpen('/carManagement/assetsData/carFiles')).toBe(true);
    expect(access.canOpen('/carManagement/assetsData/driverManagement')).toBe(false);
  });

  it('opens the online customer page and feedback to everyone, outside system settings too', () => {
    const access = computeAccess(routeTree, principal(['oss:pc:vehicle:management']));
    expect(access.canOpen('/helpCenter/onlineCustomer')).toBe(true);
    expect(access.canOpen('/systemSetting/helpCenter/feedback')).toBe(true);
    expect(access.canOpen('/systemSetting/helpCenter/operationManual')).toBe(false);
    expect(topNames(principal(['oss:pc:vehicle:management']))).not.toContain('systemSetting');
  });

  it('lets any one of several values through and * always', () => {
    const access = computeAccess(routeTree, principal([]));
    expect(access.canOpen('/dashboard')).toBe(true);
    expect(access.canOpen('/downloadRecord')).toBe(true);
    expect(access.canOpen('/myCoupons')).toBe(false);
  });

  it('drops groups left without visible children', () => {
    const p = principal(['oss:pc:finance:management']);
    expect(topNames(p)).not.toContain('financialManagement');
  });

  it('applies mustB2B, noB2B and the insurance blacklist', () => {
    const values = catalogue.map((c) => c.value);
    const plain = computeAccess(routeTree, principal(values));
    const b2b = computeAccess(routeTree, principal(values, { isB2B: true }));
    const blacklisted = computeAccess(routeTree, principal(values, { inInsuranceBlacklist: true }));
    expect(plain.canOpen('/financialManagement/billManagement/monthPayBillList')).toBe(false);
    expect(b2b.canOpen('/financialManagement/billManagement/monthPayBillList')).toBe(true);
    expect(plain.canOpen('/financialManagement/refundManagement/billRefundSure')).toBe(true);
    expect(b2b.canOpen('/financialManagement/refundManagement/billRefundSure')).toBe(false);
    expect(plain.canOpen('/carManagement/vehicleManagement/carGuaranteeSlip')).toBe(true);
    expect(blacklisted.canOpen('/carManagement/vehicleManagement/carGuaranteeSlip')).toBe(false);
  });

  it('needs the white lists for order centre, behaviour analysis and lock-car', () => {
    const values = catalogue.map((c) => c.value);
    const none = computeAccess(routeTree, principal(values));
    expect(none.canOpen('/financialManagement/orderManage')).toBe(false);
    expect(none.canOpen('/carManagement/assetsReport/behaviorAnalyze')).toBe(false);
    expect(none.canOpen('/carManagement/assetsMonitor/lockCarManagement')).toBe(false);
    const listed = computeAccess(routeTree, principal(values, { inOrderCenterList: true, inBehaviorAnalysisList: true, inLockCarList: true }));
    expect(listed.canOpen('/financialManagement/orderManage')).toBe(true);
    expect(listed.canOpen('/carManagement/assetsReport/behaviorAnalyze')).toBe(true);
    expect(listed.canOpen('/carManagement/assetsMonitor/lockCarManagement')).toBe(true);
    expect(computeAccess(routeTree, principal(values, { isSF: true })).canOpen('/financialManagement/orderManage')).toBe(true);
  });

  it('reads missing flags as false and empty', () => {
    expect(normalizeFlags(undefined)).toMatchObject({ isB2B: false, isChargeAccount: false, needOpenPages: [] });
  });

  it('lands a group on its first allowed visible leaf', () => {
    const access = computeAccess(routeTree, principal(['oss:pc:system:settings', 'as:sys:role:getList']));
    const group = access.byPath.get('/systemSetting');
    expect(group && access.landing(group)).toBe('/systemSetting/roleManagement');
  });

  it('opens pages of the needs-open list in a new tab', () => {
    const access = computeAccess(routeTree, principalOf(everything, { needOpenPages: ['quicklyFindCar'] }));
    const route = (path: string) => {
      const found = access.byPath.get(path);
      if (!found) throw new Error(path);
      return found;
    };
    expect(access.opensInNewTab(route('/carManagement/assetsMonitor/quicklyFindCar'))).toBe(true);
    expect(access.opensInNewTab(route('/carManagement/assetsMonitor/fenceDashboard'))).toBe(false);
  });

  it('never lists hidden routes in the menu', () => {
    const names = flatten(resolveTree(routeTree)).filter((r) => r.meta.hidden).map((r) => r.name);
    const menuNames: string[] = [];
    const walk = (items: ReturnType<typeof computeAccess>['menu']): void =>
      items.forEach((i) => {
        menuNames.push(i.name);
        walk(i.children);
      });
    walk(computeAccess(routeTree, principalOf(everything)).menu);
    expect(names.filter((n) => menuNames.includes(n))).toEqual([]);
  });
});

describe('sidebar search', () => {
  const menu = computeAccess(routeTree, principalOf(everything)).menu.find((m) => m.name === 'systemSetting')?.children ?? [];
  const titles: Record<string, string> = { 'route.roleManagement': '角色管理', 'route.userManagement': '用户管理' };
  const t = (k: string) => titles[k] ?? k;

  it('filters by title with the query trimmed, keeping ancestors', () => {
    const result = filterMenu(menu, '  角色 ', t);
    expect(result.map((m) => m.name)).toEqual(['roleManagement']);
  });

  it('returns everything for an empty query', () => {
    expect(filterMenu(menu, '   ', t)).toBe(menu);
  });
});
