import { Card, Col, Empty, Row, Statistic } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { EChart } from '@/components/chart/echart';
import { LoadErrorResult } from '@/components/load-error';
import { PageLoading } from '@/components/page-loading';
import { codeLabel } from '@/lib/codes';
import '../messages';
import { useDashboard, type BillDashboard } from '../api/finance';
import { money } from '../components/labels';
import { P } from '../components/parts';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Outstanding by bill kind, as a pie. */
export function kindOption(d: BillDashboard, t: Translate) {
  return {
    tooltip: { trigger: 'item' },
    legend: { bottom: 0 },
    series: [
      {
        type: 'pie',
        radius: ['40%', '70%'],
        data: d.byKind.map((k) => ({ name: codeLabel(t, `${P}billKinds`, k.kind), value: k.amountFen / 100 })),
      },
    ],
  };
}

/** Payable and paid of the last 12 months. */
export function trendOption(d: BillDashboard, t: Translate) {
  return {
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0 },
    xAxis: { type: 'category', data: d.trend.map((m) => m.month) },
    yAxis: { type: 'value', name: t(`${P}dashboard.yuan`) },
    series: [
      { name: t(`${P}bill.payable`), type: 'bar', data: d.trend.map((m) => m.payableFen / 100) },
      { name: t(`${P}bill.paid`), type: 'line', data: d.trend.map((m) => m.paidFen / 100) },
    ],
  };
}

/**
 * 账单看板 (billDashboard, as:b2b:bill): payable, paid, outstanding, overdue
 * and due within 7 days, by bill kind and month (ECharts loads with the
 * first chart).
 */
export default function BillDashboardPage() {
  const { t } = useTranslation();
  const dashboard = useDashboard();
  const d = dashboard.data;
  const kinds = useMemo(() => (d ? kindOption(d, t) : undefined), [d, t]);
  const trend = useMemo(() => (d ? trendOption(d, t) : undefined), [d, t]);
  if (dashboard.error) return <LoadErrorResult error={dashboard.error} onRetry={() => void dashboard.refetch()} />;
  if (!d) return <PageLoading />;
  const figures: [string, string][] = [
    ['payable', money(d.payableFen)],
    ['paid', money(d.paidFen)],
    ['outstanding', money(d.outstandingFen)],
    ['overdue', `${money(d.overdueFen)} / ${d.overdueCount}`],
    ['dueSoon', money(d.dueSoonFen)],
    ['unpaidCount', String(d.unpaidCount)],
    ['pendingConfirmation', String(d.pendingConfirmationCount)],
    ['invoiceable', money(d.invoiceableFen)],
  ];
  return (
    <div data-testid="finance-dashboard">
      <Row gutter={[16, 16]}>
        {figures.map(([key, value]) => (
          <Col key={key} xs={12} md={6}>
            <Card variant="borderless">
              <Statistic title={t(`${P}dashboard.${key}`)} value={value} data-testid={`dashboard-${key}`} />
            </Card>
          </Col>
        ))}
        <Col xs={24} md={10}>
          <Card title={t(`${P}dashboard.byKind`)} variant="borderless">
            {d.byKind.length && kinds ? <EChart option={kinds} style={{ height: 320 }} data-testid="dashboard-kinds" /> : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />}
          </Card>
        </Col>
        <Col xs={24} md={14}>
          <Card title={t(`${P}dashboard.trend`)} variant="borderless">
            {d.trend.length && trend ? <EChart option={trend} style={{ height: 320 }} data-testid="dashboard-trend" /> : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />}
          </Card>
        </Col>
      </Row>
    </div>
  );
}
