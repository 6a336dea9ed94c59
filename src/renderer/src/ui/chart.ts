// Only the Chart.js parts the bandwidth charts use.
import { themeColour } from './theme';
import { Chart, Legend, LineController, LineElement, LinearScale, LogarithmicScale, PointElement, Title, Tooltip } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Title, Tooltip);

/** Text and grid lines in the theme's colours; called before a chart is made. */
export function themeCharts(): void {
  Chart.defaults.color = themeColour('--dim');
  Chart.defaults.borderColor = themeColour('--row-line');
}

export { Chart };
