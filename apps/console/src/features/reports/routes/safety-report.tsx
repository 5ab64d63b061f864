import { SettingOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Empty, Row, Segmented, Spin, Statistic, Table, Tabs } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { EChart } from '@/components/chart/echart';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import type { CallOptions } from '@/lib/api-client';
import { useHasPermission } from '@/lib/auth';
import { PAGE_PARAM } from '@/lib/list-url';
import { useOrgTreeOptions } from '@/lib/org-options';
// The alarm types' names are the risk pages' (namespace `risk`).
import '@/features/risk/messages';
import '../messages';
import {
  defaultSafetyDays,
  DIMENSION_PARAM,
  DIMENSIONS,
  dimensionOf,
  exportSafetyRanking,
  filterOf,
  getSafetySummary,
  getSafetyTrend,
  listSafetyRanking,
  MAX_SAFETY_DAYS,
  ORDER_PARAM,
  rankingQuery,
  SAFETY_KEY,
  SAFETY_RANKING_KEY,
  scoreText,
  type SafetyRankingQuery,
  type SafetyRow,
  type SafetyTypeRate,
} from '../api/safety';
import { km } from '../components/figures';
import { rangeProblem, reportDateField } from '../components/report-date-field';
import { safetyTrendOption } from '../components/safety-trend-chart';
import { SafetyWeightsDialog } from '../components/safety-weights-dialog';

type RankingPage = { list: SafetyRow[]; total: number };

/**
 * 安全报表 (carSafetyReport, oss:asset:report; reached from the operation logs):
 * alarms per 100 km by alarm type over a range of at most 366 Beijing days (the
 * last 30 by default), the ranking by safety score (车辆/司机/组织 tabs, worst
 * first or best first), the weekly trend, the weights (as:alarm:rule) and the
 * ranking's export. A row under the minimum mileage shows no score.
 */
export default function SafetyReportPage() {
  const { t } = useTranslation();
  const orgs = useOrgTreeOptions();
  const canEditWeights = useHasPermission('as:alarm:rule');
  const [weightsOpen, setWeightsOpen] = useState(false);
  const [params, setParams] = useSearchParams();
  const dimension = dimensionOf(params.get(DIMENSION_PARAM));
  const bestFirst = params.get(ORDER_PARAM) === 'best';

  const fields = useMemo<FilterField[]>(
    () => [
      reportDateField(t, defaultSafetyDays(), MAX_SAFETY_DAYS),
      { prop: 'orgIds', label: t('reports:fields.org'), type: 'selectTree', multiple: true, width: 220, options: orgs as never },
    ],
    [t, orgs],
  );
  const list = useListPage<SafetyRow, SafetyRankingQuery, RankingPage>({
    fields,
    queryKey: SAFETY_RANKING_KEY,
    toQuery: (filters, page, size) => rankingQuery(filters, page, size, dimension, bestFirst),
    fetch: listSafetyRanking,
  });
  const filter = filterOf(list.query);
  const rangeOk = !rangeProblem(filter.reportDateStart, filter.reportDateEnd, MAX_SAFETY_DAYS);
  const summary = useQuery({ queryKey: [...SAFETY_KEY, 'summary', filter], queryFn: () => getSafetySummary(filter), enabled: rangeOk });
  const trend = useQuery({ queryKey: [...SAFETY_KEY, 'trend', filter], queryFn: () => getSafetyTrend(filter), enabled: rangeOk });
  const trendOption = useMemo(() => safetyTrendOption(trend.data?.weeks ?? [], t), [trend.data, t]);

  /** A tab or the order: page 1 of the new ranking, the filters kept. */
  const setView = (key: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete(PAGE_PARAM);
    setParams(next);
  };

  const typeRows = (summary.data?.byType ?? []).filter((r) => r.alarmCount > 0 || r.weight > 0);
  const columns: ListColumn<SafetyRow>[] = [
    { prop: 'rank', label: t('reports:safety.fields.rank'), width: 70, align: 'center', formatter: (row) => row.rank },
    { prop: 'name', label: t(`reports:safety.name.${dimension}`), width: 160, showOverflowTooltip: true },
    ...(dimension === 'ORG' ? [] : [{ prop: 'orgName', label: t('reports:fields.org'), width: 150, showOverflowTooltip: true } as ListColumn<SafetyRow>]),
    { prop: 'score', label: t('reports:safety.fields.score'), width: 100, align: 'right', formatter: (row) => <span data-testid="safety-score">{scoreText(row.score)}</span> },
    { prop: 'mileageM', label: t('reports:fields.mileage'), width: 110, align: 'right', formatter: (row) => km(row.mileageM) },
    { prop: 'alarmCount', label: t('reports:fields.alarmCount'), width: 100, align: 'right', formatter: (row) => row.alarmCount },
    { prop: 'alarmsPer100km', label: t('reports:safety.fields.per100km'), width: 120, align: 'right', formatter: (row) => row.alarmsPer100km.toFixed(2) },
    ...(dimension === 'VEHICLE' ? [] : [{ prop: 'vehicleCount', label: t('reports:safety.fields.vehicles'), width: 90, align: 'right', formatter: (row: SafetyRow) => row.vehicleCount } as ListColumn<SafetyRow>]),
    {
      key: 'byType',
      label: t('reports:safety.fields.byType'),
      render: (row) => row.byType.map((r) => (r.alarmType ? `${t(`risk:type.${r.alarmType}`)} ${r.alarmCount}` : '')).filter(Boolean).join('、') || '--',
    },
  ];

  const head = (
    <div data-testid="safety-head">
      <LoadErrorBanner error={rangeOk ? (list.error ?? summary.error ?? trend.error) : null} onRetry={() => void Promise.all([list.refetch(), summary.refetch(), trend.refetch()])} />
      <Spin spinning={summary.isFetching || trend.isFetching}>
        <Row gutter={16} style={{ marginBottom: 16 }}>
          <Col span={6}>
            <Statistic title={t('reports:safety.summary.mileage')} value={km(summary.data?.mileageM ?? 0)} />
          </Col>
          <Col span={6}>
            <Statistic title={t('reports:safety.summary.alarms')} value={summary.data?.alarmCount ?? 0} />
          </Col>
          <Col span={6}>
            <Statistic title={t('reports:safety.summary.per100km')} value={(summary.data?.alarmsPer100km ?? 0).toFixed(2)} />
          </Col>
          <Col span={6}>
            <Statistic title={t('reports:safety.summary.vehicles')} value={summary.data?.vehicleCount ?? 0} />
          </Col>
        </Row>
        <Row gutter={16} style={{ marginBottom: 16 }}>
          <Col span={10}>
            <Card size="small" title={t('reports:safety.byTypeTitle')}>
              <Table<SafetyTypeRate>
                data-testid="safety-by-type"
                size="small"
                rowKey={(r) => r.alarmType ?? ''}
                pagination={false}
                scroll={{ y: 240 }}
                dataSource={typeRows}
                locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('reports:safety.empty')} /> }}
                columns={[
                  { title: t('reports:safety.fields.alarmType'), dataIndex: 'alarmType', render: (_, r) => (r.alarmType ? t(`risk:type.${r.alarmType}`) : '--') },
                  { title: t('reports:fields.alarmCount'), dataIndex: 'alarmCount', align: 'right', width: 90 },
                  { title: t('reports:safety.fields.per100km'), dataIndex: 'per100km', align: 'right', width: 110, render: (v: number) => v.toFixed(2) },
                  { title: t('reports:safety.fields.weight'), dataIndex: 'weight', align: 'right', width: 70 },
                ]}
              />
            </Card>
          </Col>
          <Col span={14}>
            <Card size="small" title={t('reports:safety.trendTitle')}>
              {trend.data && trend.data.weeks.some((w) => w.mileageM > 0 || w.alarmCount > 0) ? (
                <EChart data-testid="safety-trend" option={trendOption} style={{ height: 276 }} />
              ) : (
                <Empty style={{ height: 252, paddingTop: 60 }} image={Empty.PRESENTED_IMAGE_SIMPLE} description={trend.isFetching ? t('reports:safety.loading') : t('reports:safety.empty')} />
              )}
            </Card>
          </Col>
        </Row>
      </Spin>
      <Tabs
        data-testid="safety-tabs"
        activeKey={dimension}
        onChange={(key) => setView(DIMENSION_PARAM, key === 'VEHICLE' ? undefined : key)}
        items={DIMENSIONS.map((d) => ({ key: d, label: t(`reports:safety.tabs.${d}`) }))}
        tabBarExtraContent={
          <Segmented
            size="small"
            value={bestFirst ? 'best' : 'worst'}
            onChange={(v) => setView(ORDER_PARAM, v === 'best' ? 'best' : undefined)}
            options={[
              { value: 'worst', label: t('reports:safety.order.worst') },
              { value: 'best', label: t('reports:safety.order.best') },
            ]}
          />
        }
      />
    </div>
  );

  return (
    <ListPage<SafetyRow>
      testId="safety-report"
      {...list.listProps}
      toolbar={
        <>
          {canEditWeights && (
            <Button icon={<SettingOutlined />} onClick={() => setWeightsOpen(true)} data-testid="safety-weights-button">
              {t('reports:safety.weights.button')}
            </Button>
          )}
          <ExportButton disabled={!rangeOk} startExport={(options: CallOptions) => exportSafetyRanking(list.query, options)} />
        </>
      }
      banner={head}
      table={{ rowKey: 'id', columns, scrollX: 1100, ...list.tableProps }}
    >
      <SafetyWeightsDialog open={weightsOpen} onClose={() => setWeightsOpen(false)} />
    </ListPage>
  );
}
