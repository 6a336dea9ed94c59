// Only the Chart.js parts the bandwidth charts use.
import { Chart, Legend, LineController, LineElement, LinearScale, LogarithmicScale, PointElement, Title, Tooltip } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Title, Tooltip);

export { Chart };
