/**
 * ECharts through `echarts/core` with only what the console's charts use
 * (lines, bars; grid, tooltip, plain legend, wheel/drag zoom, mark lines/areas; canvas):
 * a fraction of the full build, in a chunk of its own that loads with the first chart.
 */
import { BarChart, LineChart } from 'echarts/charts';
import { DataZoomInsideComponent, GridComponent, LegendPlainComponent, MarkAreaComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([LineChart, BarChart, GridComponent, TooltipComponent, LegendPlainComponent, DataZoomInsideComponent, MarkLineComponent, MarkAreaComponent, CanvasRenderer]);

export { echarts };
