// Renders a FigureSpec with chart.js on @napi-rs/canvas (no browser): PNG at 2x, SVG with real <text> (searchable,
// selectable, its font named with fallbacks), or a one-page vector PDF (paths and embedded font subsets, no bitmap)
// sized to the figure in pt.
import { createCanvas, PDFDocument, SvgExportFlag } from '@napi-rs/canvas';
import { Chart, CategoryScale, Filler, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, ScatterController, Title } from 'chart.js';
import { chartConfig, LIGHT } from '../../shared/chart';
import { FigureSpec as FigureSpecSchema, type FigureFormat, type FigureSpec } from '../../shared/figures';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, LogarithmicScale, CategoryScale, Title, Legend, Filler);

const WIDTH = 800; // CSS px (1 px = 1 pt in the PDF); a 6.5-inch column at ~120 dpi
const HEIGHT = 450;

const FIGURE_MIME: Record<FigureFormat, string> = { png: 'image/png', svg: 'image/svg+xml', pdf: 'application/pdf' };

// With animation off, `new Chart` draws synchronously; a second `chart.draw()` would leave two copies of every
// element in the SVG (PNG and PDF hide it: chart.js clears first). destroy() clears the canvas, so it runs last.
export async function renderFigure(spec: FigureSpec, format: FigureFormat): Promise<{ bytes: Uint8Array; mime: string }> {
  const config = chartConfig(spec, LIGHT, { background: true });
  const mime = FIGURE_MIME[format];
  if (format === 'svg') {
    const canvas = createCanvas(WIDTH, HEIGHT, SvgExportFlag.NoPrettyXML);
    const chart = new Chart(canvas as unknown as HTMLCanvasElement, config);
    const svg = tidySvg(canvas.getContent().toString());
    chart.destroy();
    return { bytes: new TextEncoder().encode(svg), mime };
  }
  if (format === 'pdf') {
    const doc = new PDFDocument({ title: FigureSpecSchema.parse(spec).title, creator: 'prh-workbench' });
    const page = pageCanvas(doc.beginPage(WIDTH, HEIGHT), WIDTH, HEIGHT);
    const chart = new Chart(page.canvas as unknown as HTMLCanvasElement, config);
    doc.endPage();
    const pdf = doc.close();
    page.detach();
    chart.destroy();
    return { bytes: new Uint8Array(pdf), mime };
  }
  // chart.js sizes the chart from the canvas (CSS px) and grows the backing store by devicePixelRatio.
  const canvas = createCanvas(WIDTH, HEIGHT);
  const chart = new Chart(canvas as unknown as HTMLCanvasElement, { ...config, options: { ...config.options, devicePixelRatio: 2 } });
  const png = await canvas.encode('png');
  chart.destroy();
  return { bytes: new Uint8Array(png), mime };
}

// Skia writes glyph positions as `x="1, 2, "` (a trailing comma strict SVG parsers reject) and names the one font it
// resolved; a reader without that font gets its metric-compatible twins, then any sans-serif.
const FONT_FALLBACKS: Record<string, string> = { 'Liberation Sans': 'Arial, Helvetica', 'DejaVu Sans': 'Verdana' };
function tidySvg(svg: string): string {
  return svg
    .replace(/ (x|y)="([^"]*?),\s*"/g, ' $1="$2"')
    .replace(/font-family="([^"]+)"/g, (_, f: string) => `font-family="${[f, FONT_FALLBACKS[f], 'sans-serif'].filter(Boolean).join(', ')}"`);
}

// A PDF page context has no `.canvas`, which chart.js reads for the size; give it a stand-in canvas whose
// context is this proxy. Getters, setters and methods must see the real context as `this` (napi throws otherwise).
// detach() turns later calls (chart.destroy's clearRect) into no-ops, since the page is gone by then.
type PageContext = ReturnType<PDFDocument['beginPage']>;
function pageCanvas(ctx: PageContext, width: number, height: number) {
  let live = true;
  const canvas = { width, height, style: {}, getContext: () => proxy };
  const proxy: PageContext = new Proxy(ctx, {
    get(target, prop) {
      if (prop === 'canvas') return canvas;
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? (...args: unknown[]) => (live ? value.apply(target, args) : undefined) : value;
    },
    set: (target, prop, value) => !live || Reflect.set(target, prop, value),
  });
  return { canvas, detach: () => { live = false; } };
}
