/**
 * The route tree of console spec §2 as one data table. Each node carries the spec's meta;
 * the menu, the guards, breadcrumbs and tab titles are all computed from it
 * (see `lib/access.ts`). Permission values are the server's catalogue
 * (services/org/src/permissions.json).
 */

/** Feature folder whose lazily loaded chunk renders the node's page. */
export type Domain = 'workbench' | 'vehicles' | 'monitoring' | 'risk' | 'reports' | 'vehicleManagement' | 'finance' | 'energy' | 'system' | 'messages' | 'account';

export type IconName =
  | 'home' | 'car' | 'finance' | 'energy' | 'setting' | 'assets' | 'monitor' | 'report' | 'tool' | 'risk'
  | 'order' | 'bill' | 'invoice' | 'refund' | 'charge' | 'org' | 'role' | 'user' | 'help' | 'history';

/** Enterprise white lists that a route also needs (console spec §6). */
export type EnterpriseList = 'orderCenter' | 'behaviorAnalysis' | 'lockCar';

export interface RouteMeta {
  /** i18n key of the title. */
  title: string;
  /** Any one of these is enough; '*' (or none) means every signed-in user. */
  permissionValue?: string | string[];
  hidden?: boolean;
  noCache?: boolean;
  noB2B?: boolean;
  mustB2B?: boolean;
  noBlackList?: boolean;
  /** Mega-menu row of a second-level node (1 first row, 2 second row). */
  group?: 1 | 2;
  icon?: IconName;
  alwaysShow?: boolean;
  desc?: string;
  list?: EnterpriseList;
  /** Open to every signed-in user even inside a gated group (the group's rules do not apply). */
  openToAll?: boolean;
}

export interface RouteNode {
  /** A segment below the parent, or an absolute path (starts with '/'). */
  path: string;
  /** Unique route name (the needs-open list names pages by it). */
  name: string;
  meta: RouteMeta;
  domain?: Domain;
  children?: RouteNode[];
}

const leaf = (path: string, meta: Omit<RouteMeta, 'title'> & { title?: string } = {}, name = path): RouteNode => ({
  path,
  name,
  meta: { title: `route.${name}`, ...meta },
});
const hidden = (path: string, meta: Omit<RouteMeta, 'title'> = {}, name = path): RouteNode =>
  leaf(path, { ...meta, hidden: true, noCache: true }, name);
const group = (path: string, meta: Omit<RouteMeta, 'title'>, children: RouteNode[], name = path): RouteNode => ({
  ...leaf(path, meta, name),
  children,
});

export const routeTree: RouteNode[] = [
  { ...leaf('/dashboard', { icon: 'home', permissionValue: '*' }, 'dashboard'), domain: 'workbench' },
  {
    ...group('/carManagement', { icon: 'car', permissionValue: 'oss:pc:vehicle:management' }, [
      group('assetsData', { icon: 'assets', group: 1 }, [
        leaf('carFiles', { permissionValue: 'as:sys:car' }, 'carFileList'),
        hidden('bindingLog', { permissionValue: 'as:sys:car' }),
        hidden('addPrivateCar', { permissionValue: 'as:sys:car' }),
        group('carUsedRecord', { permissionValue: 'as:sys:car:used' }, [
          leaf('carRentRecord', { permissionValue: 'as:sys:car:used' }),
          leaf('purchaseRecord', { permissionValue: 'as:sys:car:used' }),
          leaf('carReplaceRecord', { permissionValue: 'as:sys:car:used' }),
          leaf('rentForSaleRecord', { permissionValue: 'as:sys:car:used' }),
        ]),
        leaf('driverManagement', { permissionValue: 'as:sys:driver' }),
      ]),
      {
        // Maps, streams and charts: a chunk of its own, loaded only when a monitoring page opens.
        ...group('assetsMonitor', { icon: 'monitor', group: 1 }, [
          leaf('fenceDashboard', { permissionValue: 'as:fence' }),
          hidden('operateMonitor', { permissionValue: 'as:fence' }),
          hidden('addFence', { permissionValue: 'as:fence' }),
          hidden('singInSetPage', { permissionValue: 'as:fence' }),
          hidden('managePage', { permissionValue: 'as:fence' }),
          hidden('crossRailPage', { permissionValue: 'as:fence' }),
          hidden('fenceDetail', { permissionValue: 'as:fence' }),
          leaf('quicklyFindCar', { permissionValue: 'as:mancar' }),
          leaf('temperatureMonitor', { permissionValue: 'as:temperature' }),
          hidden('authorizationRecord', { permissionValue: 'as:temperature' }),
          leaf('lockCarManagement', { permissionValue: 'as:lockcar', list: 'lockCar' }),
          hidden('lockAndUnlockCar', { permissionValue: 'as:lockcar', list: 'lockCar' }),
          hidden('trackPlayback', { permissionValue: 'as:mancar' }),
        ]),
        domain: 'monitoring',
      },
      {
        // Operation logs and the safety report: the reports chunk, loaded only when a report page opens.
        ...group('assetsReport', { icon: 'report', group: 1, permissionValue: 'oss:asset:report' }, [
          group('operationLog', { permissionValue: 'oss:asset:report' }, [
            leaf('dailyLog', { permissionValue: 'oss:asset:report' }),
            leaf('monthlyLog', { permissionValue: 'oss:asset:report' }),
          ]),
          hidden('carSafetyReport', { permissionValue: 'oss:asset:report' }),
          // Charging figures: rendered by the energy chunk (it needs charging opened).
          { ...leaf('behaviorAnalyze', { permissionValue: 'as:charge:behavior', list: 'behaviorAnalysis' }), domain: 'energy' },
        ]),
        domain: 'reports',
      },
      {
        // Violations, maintenance, inspections, repairs and insurance: the vehicle-management chunk.
        ...group('vehicleManagement', { icon: 'tool', group: 2 }, [
          leaf('trafficViolations', { permissionValue: 'as:violation' }),
          hidden('trafficViolationsDetail', { permissionValue: 'as:violation' }),
          leaf('carMaintenance', { permissionValue: 'as:maintain:remind' }),
          leaf('drivingLicense', { permissionValue: 'as:inspection' }),
          group('maintainment', { permissionValue: 'as:maintain' }, [
            leaf('maintainOrder', { permissionValue: 'as:maintain' }),
            hidden('orderDetail', { permissionValue: 'as:maintain' }),
            hidden('orderCreate', { permissionValue: 'as:maintain' }),
            hidden('priceConfirm', { permissionValue: 'as:maintain' }),
            leaf('maintainRecord', { permissionValue: 'as:maintain' }),
            hidden('maintainRecordDetail', { permissionValue: 'as:maintain' }),
            leaf('orderConfig', { permissionValue: 'as:maintain' }),
            leaf('statement', { permissionValue: 'as:maintain' }),
            hidden('statementDetail', { permissionValue: 'as:maintain' }),
            leaf('bill', { permissionValue: 'as:maintain' }, 'maintainBill'),
            hidden('billDetail', { permissionValue: 'as:maintain' }, 'maintainBillDetail'),
            hidden('billNewDetail', { permissionValue: 'as:maintain' }, 'maintainBillNewDetail'),
          ]),
          leaf('carGuaranteeSlip', { permissionValue: 'as:insurance', noBlackList: true }),
          hidden('insuranceOrder', { permissionValue: 'as:insurance', noBlackList: true }),
        ]),
        domain: 'vehicleManagement',
      },
      {
        // Alarms, their map and charts: the risk chunk, loaded only when a risk page opens.
        ...group('riskControll', { icon: 'risk', group: 2 }, [
          leaf('riskAlarmRecord', { permissionValue: 'as:alarm' }),
          leaf('customerServiceRecord', { permissionValue: 'as:risk:service' }),
          leaf('carAccidentRecord', { permissionValue: 'as:accident' }),
          leaf('warnRecord', { permissionValue: 'as:risk:warn' }),
          leaf('monitor', { permissionValue: 'as:risk:video' }, 'videoMonitor'),
          leaf('playback', { permissionValue: 'as:risk:video' }, 'videoPlayback'),
        ]),
        domain: 'risk',
      },
    ], 'carManagement'),
    domain: 'vehicles',
  },
  {
    ...group('/financialManagement', { icon: 'finance', permissionValue: 'oss:pc:finance:management' }, [
      leaf('orderManage', { icon: 'order', group: 1, permissionValue: 'as:order:center', list: 'orderCenter' }),
      leaf('billDashboard', { icon: 'bill', group: 1, permissionValue: 'as:b2b:bill' }),
      group('billManagement', { icon: 'bill', group: 1 }, [
        leaf('billList', { permissionValue: 'bill:biz:pageInfo' }),
        hidden('billDetail', { permissionValue: 'bill:biz:pageInfo' }),
        hidden('billPay', { permissionValue: 'oss:bill:pagepay', mustB2B: true }),
        leaf('monthPayBillList', { permissionValue: 'oss:bill:reconciliation', mustB2B: true }),
        leaf('billSettlement', { permissionValue: 'bill:settlement' }),
      ]),
      group('ticketManagement', { icon: 'invoice', group: 2, permissionValue: 'as:invoice' }, [
        leaf('applyInvoice', { permissionValue: 'as:invoice' }),
        hidden('applyInvoiceSubmit', { permissionValue: 'as:invoice', noB2B: true }),
        hidden('applyInvoiceB2BSubmit', { permissionValue: 'as:invoice', mustB2B: true }),
        leaf('addressManage', { permissionValue: 'as:invoice' }),
        leaf('applyBill', { permissionValue: 'as:invoice' }),
        leaf('invoiceHistory', { permissionValue: 'as:invoice' }),
        hidden('invoiceHistoryDetail', { permissionValue: 'as:invoice', noB2B: true }),
        hidden('invoiceHistoryB2BDetail', { permissionValue: 'as:invoice', mustB2B: true }),
      ]),
      group('refundManagement', { icon: 'refund', group: 2, permissionValue: 'as:refund' }, [
        leaf('billRefund', { permissionValue: 'as:refund' }),
        hidden('billRefundSure', { permissionValue: 'as:refund', noB2B: true }),
        hidden('billRefundSureB2B', { permissionValue: 'as:refund', mustB2B: true }),
        leaf('refundRecord', { permissionValue: 'as:refund' }),
      ]),
      leaf('/billCenter/invoiceManagement/companyManage', { icon: 'invoice', group: 2, permissionValue: 'as:invoice:company' }, 'companyManage'),
    ], 'financialManagement'),
    domain: 'finance',
  },
  {
    ...group('/energyManagement', { icon: 'energy', permissionValue: 'oss:pc:energy:management' }, [
      group('charge', { icon: 'charge', permissionValue: 'as:charge', alwaysShow: true }, [
        leaf('dashboard', { group: 1, permissionValue: 'as:charge:index' }, 'chargeDashboard'),
        group('accountManagement', { group: 1, permissionValue: 'as:charge:fee' }, [
          leaf('accountBalanceAllocation', { permissionValue: 'as:charge:fee' }),
          leaf('balanceAllocationRecord', { permissionValue: 'as:charge:fee' }),
          leaf('juniorElectricCard', { permissionValue: 'as:charge:fee' }),
        ]),
        group('chargeManagement', { group: 1, permissionValue: 'as:charge:card' }, [
          leaf('electricCard', { permissionValue: 'as:charge:card' }),
          leaf('consumeRecord', { permissionValue: 'as:charge:card' }),
          leaf('countChangeRecord', { permissionValue: 'as:charge:card' }),
          leaf('scanPlateRecord', { permissionValue: 'as:charge:card' }),
        ]),
        leaf('chargeReconciliation', { group: 2, permissionValue: 'as:charge:settlement:page' }),
      ], 'energyCharge'),
    ], 'energyManagement'),
    domain: 'energy',
  },
  {
    ...group('/systemSetting', { icon: 'setting', permissionValue: 'oss:pc:system:settings' }, [
      leaf('orgManagement', { icon: 'org', group: 1, permissionValue: 'as:sys:org:getList' }),
      hidden('addOrg', { permissionValue: 'as:sys:org:getList' }),
      leaf('roleManagement', { icon: 'role', group: 1, permissionValue: 'as:sys:role:getList' }),
      leaf('userManagement', { icon: 'user', group: 1, permissionValue: 'as:sys:user:getList' }),
      hidden('addUser', { permissionValue: 'as:sys:user:getList' }),
      leaf('loginLog', { icon: 'history', group: 1, permissionValue: 'as:sys:loginfo' }),
      group('helpCenter', { icon: 'help', group: 2 }, [
        leaf('operationManual', { permissionValue: 'oss:help:center' }),
        leaf('feedback', { permissionValue: '*', openToAll: true }),
      ]),
      // The customer-service float links here for everyone (console spec §1).
      leaf('/helpCenter/onlineCustomer', { icon: 'help', group: 2, permissionValue: '*', openToAll: true }, 'onlineCustomer'),
    ], 'systemSetting'),
    domain: 'system',
  },
  // Pages outside the five groups.
  { ...leaf('/downloadRecord', { hidden: true, permissionValue: '*' }, 'downloadRecord'), domain: 'account' },
  { ...leaf('/myCoupons', { hidden: true, permissionValue: 'as:coupon:pageInfo' }, 'myCoupons'), domain: 'account' },
  { ...leaf('/notice', { hidden: true, permissionValue: 'as:message:pageInfo' }, 'notice'), domain: 'messages' },
  { ...leaf('/noticeDetails', { hidden: true, noCache: true, permissionValue: 'as:message:pageInfo' }, 'noticeDetails'), domain: 'messages' },
  { ...leaf('/approve', { hidden: true, permissionValue: 'as:approval:pageInfo' }, 'approve'), domain: 'messages' },
  { ...leaf('/approveDetails', { hidden: true, noCache: true, permissionValue: 'as:approval:pageInfo' }, 'approveDetails'), domain: 'messages' },
  { ...leaf('/carFiles', { hidden: true, noCache: true, permissionValue: 'as:sys:car' }, 'carFiles'), domain: 'vehicles' },
  { ...leaf('/chargeIntroduce', { hidden: true, permissionValue: '*' }, 'chargeIntroduce'), domain: 'energy' },
];

/** Top navigation groups, in navbar order (console spec §2). */
export const NAV_GROUPS = ['dashboard', 'carManagement', 'financialManagement', 'energyManagement', 'systemSetting'] as const;

/** Paths that are not added to the tab bar (console spec §2). */
export const NO_TAB_PATHS = ['/dashboard', '/downloadRecord', '/myCoupons', '/notice', '/carFiles', '/noticeDetails', '/approve', '/approveDetails'];

export const HOME_PATH = '/dashboard';
/** The login log (`loginfoListPage`), also linked from the user menu. */
export const LOGIN_LOG_PATH = '/systemSetting/loginLog';
export const PUBLIC_PATHS = ['/login', '/selectNet'];
