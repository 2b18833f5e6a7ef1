// Renders a FigureSpec with chart.js on @napi-rs/canvas (no browser): PNG at 2x, or SVG with text as paths.
import { createCanvas, SvgExportFlag } from '@napi-rs/canvas';
import { Chart, CategoryScale, Filler, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, ScatterController, Title } from 'chart.js';
import { chartConfig, LIGHT } from '../../shared/chart';
import type { FigureFormat, FigureSpec } from '../../shared/figures';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, LogarithmicScale, CategoryScale, Title, Legend, Filler);

const WIDTH = 800; // CSS px; a 6.5-inch column at ~120 dpi
const HEIGHT = 450;

export async function renderFigure(spec: FigureSpec, format: FigureFormat): Promise<{ bytes: Uint8Array; mime: string }> {
  const config = chartConfig(spec, LIGHT, { background: true });
  if (format === 'svg') {
    const canvas = createCanvas(WIDTH, HEIGHT, SvgExportFlag.ConvertTextToPaths);
    const chart = new Chart(canvas as unknown as HTMLCanvasElement, config);
    chart.draw();
    const svg = canvas.getContent();
    chart.destroy();
    return { bytes: new Uint8Array(svg), mime: 'image/svg+xml' };
  }
  // chart.js sizes the chart from the canvas (CSS px) and grows the backing store by devicePixelRatio.
  const canvas = createCanvas(WIDTH, HEIGHT);
  const chart = new Chart(canvas as unknown as HTMLCanvasElement, { ...config, options: { ...config.options, devicePixelRatio: 2 } });
  chart.draw();
  const png = await canvas.encode('png');
  chart.destroy();
  return { bytes: new Uint8Array(png), mime: 'image/png' };
}
