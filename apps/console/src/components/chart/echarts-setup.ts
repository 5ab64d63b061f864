/**
 * ECharts through `echarts/core` with only what the console's charts use
 * (lines, bars; grid, tooltip, plain legend, wheel/drag zoom and the zoom slider, mark
 * lines/areas; canvas). A chart option naming anything else throws when it is set.
 * A fraction of the full build, in a chunk of its own that loads with the first chart.
 */
import { BarChart, LineChart } from 'echarts/charts';
import {
  DataZoomInsideComponent,
  DataZoomSliderComponent,
  GridComponent,
  LegendPlainComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TooltipComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([
  LineChart,
  BarChart,
  GridComponent,
  TooltipComponent,
  LegendPlainComponent,
  DataZoomInsideComponent,
  DataZoomSliderComponent,
  MarkLineComponent,
  MarkAreaComponent,
  CanvasRenderer,
]);

export { echarts };
