import { describe, expect, it } from 'vitest';
import { unzlibSync } from 'fflate';
import { renderFigure } from '../../engine/report';
import type { FigureSpec } from '../../shared/figures';

// Everything the exporter must draw: several series and styles, a log x axis, a right axis, reference lines.
const spec: FigureSpec = {
  id: 'fig-test',
  title: 'Alignment vs width',
  x: { label: 'width d', log: true },
  y: { label: 'mutual kNN', min: 0, max: 1 },
  y2: { label: 'loss' },
  series: [
    {
      label: 'JEPA',
      points: Array.from({ length: 20 }, (_, i) => ({ x: 2 ** (i / 2 + 3), y: 1 - 0.8 * Math.exp(-i / 5) })),
    },
    {
      label: 'contrastive',
      dash: 'dashed',
      points: Array.from({ length: 20 }, (_, i) => ({ x: 2 ** (i / 2 + 3), y: 0.9 - 0.7 * Math.exp(-i / 8) })),
    },
    {
      label: 'seeds',
      style: 'points',
      points: [
        { x: 16, y: 0.5 },
        { x: 64, y: 0.55 },
        { x: 256, y: null },
      ],
    },
    {
      label: 'loss',
      yAxis: 'right',
      style: 'step',
      points: Array.from({ length: 8 }, (_, i) => ({ x: 2 ** (i + 3), y: 5 / (i + 1) })),
    },
  ],
  refLines: [
    { axis: 'y', value: 0.5, label: 'chance' },
    { axis: 'x', value: 256, label: 'd = 256' },
  ],
};

const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');
const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;

// The decoded text of every FlateDecode stream (page content, Type 3 glyph procs, ToUnicode maps).
function pdfStreams(pdf: Uint8Array): string[] {
  const s = latin1(pdf);
  const out: string[] = [];
  for (const m of s.matchAll(/\/Filter \/FlateDecode\s*\/Length (\d+)\s*>>\s*stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    out.push(latin1(unzlibSync(pdf.subarray(start, start + Number(m[1])))));
  }
  return out;
}

describe('renderFigure', () => {
  it('PNG: 2x backing store of the 800x450 figure', async () => {
    const { bytes, mime } = await renderFigure(spec, 'png');
    expect(mime).toBe('image/png');
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const ihdr = Buffer.from(bytes.subarray(16, 24));
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)]).toEqual([1600, 900]);
  });

  it('SVG: 800x450, real text in a named font with fallbacks, strict-parser clean, the chart drawn once', async () => {
    const { bytes, mime } = await renderFigure(spec, 'svg');
    const svg = new TextDecoder().decode(bytes);
    expect(mime).toBe('image/svg+xml');
    expect(svg).toMatch(/^<\?xml[^>]*\?>\s*<svg [^>]*width="800" height="450"/);
    expect(svg).not.toMatch(/<image/);
    const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    for (const t of ['Alignment vs width', 'width d', 'mutual kNN', 'JEPA', 'contrastive', 'chance', 'd = 256'])
      expect(texts).toContain(t); // searchable
    expect(svg).toMatch(/font-family="[^"]+, sans-serif"/);
    expect(svg).not.toMatch(/ [xy]="[^"]*,\s*"/); // no trailing comma in glyph position lists
    expect(count(svg, /<path /g)).toBeGreaterThan(20);
    expect(count(svg, /<rect fill="white" width="800" height="450"/g)).toBe(1); // a second draw would double the file
  });

  it('PDF: one 800x450 pt page of paths and embedded-font text, no bitmap', async () => {
    const { bytes, mime } = await renderFigure(spec, 'pdf');
    const pdf = latin1(bytes);
    expect(mime).toBe('application/pdf');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    expect(pdf.trimEnd().endsWith('%%EOF')).toBe(true);
    expect(count(pdf, /\/Type \/Page\b/g)).toBe(1);
    expect(pdf).toMatch(/\/MediaBox \[0 0 800 450\]/);
    expect(pdf).toMatch(/\/Title \(Alignment vs width\)/);
    expect(pdf).not.toMatch(/\/Subtype \/Image/);
    expect(pdf).toMatch(/\/FontFile2 \d+ 0 R/); // TrueType subsets embedded, so text stays text
    const page = pdfStreams(bytes).find((s) => s.includes(' re\n'));
    expect(page).toBeDefined();
    expect(page).not.toMatch(/ Do\b/); // no XObject (image) painted
    expect(count(page!, /\bBT\b[^]*?\bTj\b[^]*?\bET\b/g)).toBeGreaterThan(25); // title, legend, ticks, axis titles, ref labels
    expect(count(page!, /^[\d.-]+ [\d.-]+ l$/gm)).toBeGreaterThan(100); // line segments
    expect(count(page!, /^0 0 800 450 re$/gm)).toBe(1); // one page-sized background: no stray second paint
  });

  it('rejects an invalid spec', async () => {
    await expect(renderFigure({ ...spec, id: 'a b/c' }, 'pdf')).rejects.toThrow();
  });
});
