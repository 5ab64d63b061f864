import { Tag, Tooltip } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { type FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage } from '@/components/list-page';
import { type TableColumn } from '@/components/paginated-table';
import { BLANK, formatTime } from '@/lib/format';
import { getLoginLogs, LOGIN_LOGS_KEY, LOGIN_TYPES, loginLogQuery, type LoginLogEntry, type LoginLogQuery } from '../api/login-logs';

/**
 * The login log (spec `loginfoListPage`, permission as:sys:loginfo): every
 * sign-in attempt of the enterprise's members with time, type, result, address
 * and browser; filtered by time range, type, result and account, paginated,
 * the filters and page in the URL.
 */
export default function LoginLogPage() {
  const { t } = useTranslation();
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'principal', label: t('loginLog.principal'), type: 'input', width: 150, maxlength: 64, placeholder: t('loginLog.principalPlaceholder') },
      { prop: 'time', label: t('loginLog.time'), type: 'daterange', width: 240, keys: { start: 'startTime', end: 'endTime' } },
      { prop: 'loginType', label: t('loginLog.type'), type: 'select', width: 130, options: LOGIN_TYPES.map((v) => ({ value: v, label: t(`loginLog.types.${v}`) })) },
      {
        prop: 'succeeded',
        label: t('loginLog.result'),
        type: 'select',
        width: 100,
        options: [
          { value: 'success', label: t('loginLog.success') },
          { value: 'failure', label: t('loginLog.failure') },
        ],
      },
    ],
    [t],
  );
  const list = useListPage<LoginLogEntry, LoginLogQuery>({ fields, queryKey: LOGIN_LOGS_KEY, toQuery: loginLogQuery, fetch: getLoginLogs });

  const columns: TableColumn<LoginLogEntry>[] = [
    { prop: 'loginTime', label: t('loginLog.time'), width: 180, formatter: (row) => formatTime(row.loginTime) },
    { prop: 'principal', label: t('loginLog.principal'), minWidth: 140 },
    { prop: 'loginType', label: t('loginLog.type'), width: 130, formatter: (row) => t(`loginLog.types.${row.loginType}`, { defaultValue: String(row.loginType) }) },
    {
      prop: 'succeeded',
      label: t('loginLog.result'),
      width: 100,
      render: (row) => <Tag color={row.succeeded ? 'success' : 'error'}>{row.succeeded ? t('loginLog.success') : t('loginLog.failure')}</Tag>,
    },
    { prop: 'message', label: t('loginLog.message'), minWidth: 160, showOverflowTooltip: true },
    { prop: 'ip', label: t('loginLog.ip'), width: 150 },
    {
      prop: 'userAgent',
      label: t('loginLog.userAgent'),
      width: 240,
      // Browser, version and OS read by the server; the raw user agent on hover.
      render: (row) => {
        const text = [row.browser, row.os].filter(Boolean).join(' · ');
        return text ? <Tooltip title={row.userAgent}><span data-testid="login-log-browser">{text}</span></Tooltip> : BLANK;
      },
    },
  ];

  return (
    <ListPage<LoginLogEntry>
      testId="login-log"
      {...list.listProps}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1100, ...list.tableProps }}
    />
  );
}
