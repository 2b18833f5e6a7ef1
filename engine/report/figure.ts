// Renders a FigureSpec with chart.js on @napi-rs/canvas (no browser): PNG at 2x, SVG with real <text> (searchable,
// selectable, its font named with fallbacks), or a one-page vector PDF (paths and embedded font subsets, no bitmap)
// sized to the figure in pt.
import type { PDFDocument } from '@napi-rs/canvas';
import { skia } from '../skia';
import {
  Chart,
  CategoryScale,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Title,
} from 'chart.js';
import { chartConfig, LIGHT } from '../../shared/chart';
import { FigureSpec as FigureSpecSchema, type FigureFormat, type FigureSpec } from '../../shared/figures';

Chart.register(
  LineController,
  ScatterController,
  LineElement,
  PointElement,
  LinearScale,
  LogarithmicScale,
  CategoryScale,
  Title,
  Legend,
  Filler,
);

const WIDTH = 800; // CSS px (1 px = 1 pt in the PDF); a 6.5-inch column at ~120 dpi
const HEIGHT = 450;

const FIGURE_MIME: Record<FigureFormat, string> = { png: 'image/png', svg: 'image/svg+xml', pdf: 'application/pdf' };

// With animation off, `new Chart` draws synchronously; a second `chart.draw()` would leave two copies of every
// element in the SVG (PNG and PDF hide it: chart.js clears first). destroy() clears the canvas, so it runs last.
export async function renderFigure(
  spec: FigureSpec,
  format: FigureFormat,
): Promise<{ bytes: Uint8Array; mime: string }> {
  const config = chartConfig(spec, LIGHT, { background: true });
  const mime = FIGURE_MIME[format];
  if (format === 'svg') {
    const canvas = skia().createCanvas(WIDTH, HEIGHT, skia().SvgExportFlag.NoPrettyXML);
    const chart = new Chart(canvas as unknown as HTMLCanvasElement, config);
    const svg = tidySvg(canvas.getContent().toString());
    chart.destroy();
    return { bytes: new TextEncoder().encode(svg), mime };
  }
  if (format === 'pdf') {
    const doc = new (skia().PDFDocument)({ title: FigureSpecSchema.parse(spec).title, creator: 'prh-workbench' });
    const page = pageCanvas(doc.beginPage(WIDTH, HEIGHT), WIDTH, HEIGHT);
    const chart = new Chart(page.canvas as unknown as HTMLCanvasElement, config);
    doc.endPage();
    const pdf = doc.close();
    page.detach();
    chart.destroy();
    return { bytes: new Uint8Array(pdf), mime };
  }
  // chart.js sizes the chart from the canvas (CSS px) and grows the backing store by devicePixelRatio.
  const canvas = skia().createCanvas(WIDTH, HEIGHT);
  const chart = new Chart(canvas as unknown as HTMLCanvasElement, {
    ...config,
    options: { ...config.options, devicePixelRatio: 2 },
  });
  const png = await canvas.encode('png');
  chart.destroy();
  return { bytes: new Uint8Array(png), mime };
}

// Skia writes glyph positions as `x="1, 2, "` (a trailing comma strict SVG parsers reject), one <text> per word with
// an empty one for each space (so "mutual kNN" cannot be found), and names the one font it resolved. Words of one
// label are joined back into one <text> (a space placed between them), and the font gets its metric-compatible
// twins, then any sans-serif, for a reader without it.
const FONT_FALLBACKS: Record<string, string> = { 'Liberation Sans': 'Arial, Helvetica', 'DejaVu Sans': 'Verdana' };
const TEXT = /<text ([^>]*?) x="([^"]*)" y="([^"]*)">([^<]*)<\/text>/g;
function joinWords(svg: string): string {
  const runs: { start: number; end: number; attrs: string; words: { xs: string[]; y: string; text: string }[] }[] = [];
  for (const m of svg.matchAll(TEXT)) {
    const last = runs[runs.length - 1];
    const word = {
      xs: m[2]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      y: m[3],
      text: m[4],
    };
    if (last && last.end === m.index && last.attrs === m[1]) {
      last.words.push(word);
      last.end = m.index + m[0].length;
    } else runs.push({ start: m.index!, end: m.index! + m[0].length, attrs: m[1], words: [word] });
  }
  let out = '',
    at = 0;
  for (const r of runs) {
    const words = r.words.filter((w) => w.text);
    let text = '',
      xs: string[] = [];
    words.forEach((w, i) => {
      if (i) {
        text += ' ';
        xs.push(String((Number(xs[xs.length - 1]) + Number(w.xs[0])) / 2));
      } // the space, between the words
      text += w.text;
      xs = xs.concat(w.xs);
    });
    out +=
      svg.slice(at, r.start) +
      (words.length
        ? `<text ${r.attrs} x="${xs.join(', ')}" y="${words[0].y.replace(/,\s*$/, '')}">${text}</text>`
        : '');
    at = r.end;
  }
  return out + svg.slice(at);
}
function tidySvg(svg: string): string {
  return joinWords(svg).replace(
    /font-family="([^"]+)"/g,
    (_, f: string) => `font-family="${[f, FONT_FALLBACKS[f], 'sans-serif'].filter(Boolean).join(', ')}"`,
  );
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
      return typeof value === 'function'
        ? (...args: unknown[]) => (live ? value.apply(target, args) : undefined)
        : value;
    },
    set: (target, prop, value) => !live || Reflect.set(target, prop, value),
  });
  return {
    canvas,
    detach: () => {
      live = false;
    },
  };
}
