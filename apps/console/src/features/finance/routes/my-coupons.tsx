import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel, codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import '../messages';
import { COUPONS_KEY, couponQuery, exportCoupons, listCoupons, type Coupon, type CouponQuery } from '../api/finance';
import { COUPON_COLORS, COUPON_STATUSES, money } from '../components/labels';
import { CodeTag, P } from '../components/parts';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** What a coupon gives: an amount, or a percentage with its cap; and its threshold. */
export function couponValue(c: Coupon, t: Translate): string {
  const off = c.kind === 'PERCENT_OFF' ? t(`${P}coupon.percentOff`, { percent: c.percentOffBp / 100, cap: c.maxDiscountFen ? money(c.maxDiscountFen) : '-' }) : money(c.faceValueFen);
  return c.minSpendFen ? `${off}（${t(`${P}coupon.minSpend`, { min: money(c.minSpendFen) })}）` : off;
}

/** 我的优惠券 (myCoupons, as:coupon:pageInfo): coupons the operator granted, their value, validity and use. */
export default function MyCouponsPage() {
  const { t } = useTranslation();
  const fields = useMemo<FilterField[]>(
    () => [{ prop: 'statuses', label: t(`${P}common.status`), type: 'select', multiple: true, width: 220, options: codeOptions(t, `${P}couponStatuses`, COUPON_STATUSES) }],
    [t],
  );
  const list = useListPage<Coupon, CouponQuery>({ fields, queryKey: [...COUPONS_KEY, 'mine'], toQuery: couponQuery, fetch: listCoupons });
  const columns: ListColumn<Coupon>[] = [
    { prop: 'couponNo', label: t(`${P}coupon.couponNo`), width: 180, fixed: 'left' },
    { prop: 'name', label: t(`${P}coupon.name`), width: 200, showOverflowTooltip: true },
    { prop: 'kind', label: t(`${P}coupon.value`), width: 240, formatter: (row) => couponValue(row, t) },
    {
      prop: 'applicableBillKinds',
      label: t(`${P}coupon.applicable`),
      width: 200,
      showOverflowTooltip: true,
      formatter: (row) => (row.applicableBillKinds.length ? row.applicableBillKinds.map((k) => codeLabel(t, `${P}billKinds`, k)).join('、') : t(`${P}coupon.anyBill`)),
    },
    { prop: 'validUntil', label: t(`${P}coupon.validity`), width: 220, formatter: (row) => `${formatTime(row.validFrom, '{y}-{m}-{d}')} ~ ${formatTime(row.validUntil, '{y}-{m}-{d}')}` },
    { prop: 'status', label: t(`${P}common.status`), width: 100, render: (row) => <CodeTag code={row.status} labels="couponStatuses" colors={COUPON_COLORS} /> },
    { prop: 'usedDiscountFen', label: t(`${P}coupon.used`), width: 200, formatter: (row) => (row.usedTime ? `${money(row.usedDiscountFen)} · ${formatTime(row.usedTime)}` : '') },
    { prop: 'campaign', label: t(`${P}coupon.campaign`), width: 160 },
  ];
  return (
    <ListPage<Coupon>
      testId="finance-coupon-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options) => exportCoupons(list.query, options)} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1500, ...list.tableProps }}
    />
  );
}
