import type { EChartsCoreOption } from 'echarts/core';
import { useEffect, useRef, useState, type CSSProperties } from 'react';

type Echarts = typeof import('./echarts-setup')['echarts'];
type Instance = ReturnType<Echarts['init']>;

let loading: Promise<Echarts> | undefined;
const loadEcharts = () => (loading ??= import('./echarts-setup').then((m) => m.echarts));

export interface EChartProps {
  option: EChartsCoreOption;
  style?: CSSProperties;
  className?: string;
  /** Clicks on a data point (e.g. seek playback to it). */
  onClick?: (params: { dataIndex: number; seriesIndex?: number; value?: unknown }) => void;
  'data-testid'?: string;
}

/** A chart; ECharts loads lazily with the first one, and each chart follows its box's size. */
export function EChart({ option, style, className, onClick, 'data-testid': testId }: EChartProps) {
  const element = useRef<HTMLDivElement>(null);
  const [chart, setChart] = useState<Instance>();
  const click = useRef(onClick);
  click.current = onClick;

  useEffect(() => {
    let disposed = false;
    let instance: Instance | undefined;
    let observer: ResizeObserver | undefined;
    void loadEcharts().then((echarts) => {
      if (disposed || !element.current) return;
      instance = echarts.init(element.current);
      instance.on('click', (p) => click.current?.(p as { dataIndex: number }));
      observer = new ResizeObserver(() => instance?.resize());
      observer.observe(element.current);
      setChart(instance);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      instance?.dispose();
    };
  }, []);

  useEffect(() => {
    chart?.setOption(option, { notMerge: false, lazyUpdate: true });
  }, [chart, option]);

  return <div ref={element} className={className} style={style} data-testid={testId} />;
}
