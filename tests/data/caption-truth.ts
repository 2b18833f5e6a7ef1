// Reads world captions back against a scene's stored state: the statements a caption makes that are false.
import { CONTENT_WORDS, NUISANCE_WORDS, relationHolds, type Token } from '../../engine/data';
import type { WorldState } from '../../shared/dataset';

const cellOf = (r: number, c: number) => 3 * r + c;

/** Using the generator's word tags: every content word must sit in a mention, and every mention must be true of the
 *  object, background, count or relation it is tagged with. */
export function falseTaggedFacts(tokens: Token[], s: WorldState): string[] {
  const errs: string[] = [];
  const phrases = new Map<number, { object: number; words: string[] }>();
  for (const t of tokens) {
    const c = CONTENT_WORDS.get(t.word);
    const r = t.ref;
    if (r.kind === 'nuisance' && !NUISANCE_WORDS.includes(t.word)) errs.push(`"${t.word}" tagged nuisance`);
    if ((r.kind === 'frame' || r.kind === 'nuisance') && c) errs.push(`content word "${t.word}" outside a mention`);
    if (r.kind === 'background' && !(c?.kind === 'background' && c.value === s.background))
      errs.push(`background "${t.word}" but it is ${s.background}`);
    if (r.kind === 'count' && !(c?.kind === 'count' && c.value === s.objects.length))
      errs.push(`count "${t.word}" but there are ${s.objects.length}`);
    if (r.kind === 'relation' && !relationHolds(r.relation, s.objects[r.a].cell, s.objects[r.b].cell))
      errs.push(`relation ${r.relation} false`);
    if (r.kind === 'object')
      (phrases.get(r.phrase) ?? phrases.set(r.phrase, { object: r.object, words: [] }).get(r.phrase)!).words.push(
        t.word,
      );
  }
  for (const { object, words } of phrases.values()) {
    const o = s.objects[object];
    if (!o) {
      errs.push(`object ${object} does not exist`);
      continue;
    }
    const cs = words.flatMap((w) => CONTENT_WORDS.get(w) ?? []);
    if (cs.filter((c) => c.kind === 'shape').length !== 1)
      errs.push(`phrase "${words.join(' ')}" names ${cs.filter((c) => c.kind === 'shape').length} shapes`);
    let row: number | null = null,
      col: number | null = null,
      centre = false;
    for (const c of cs) {
      if (c.kind === 'shape' && c.value !== o.shape) errs.push(`shape ${c.value} but object ${object} is a ${o.shape}`);
      if (c.kind === 'colour' && c.value !== o.colour)
        errs.push(`colour ${c.value} but object ${object} is ${o.colour}`);
      if (c.kind === 'size' && c.value !== o.size) errs.push(`size ${c.value} but object ${object} is ${o.size}`);
      if (c.kind === 'row') row = c.value;
      if (c.kind === 'col') col = c.value;
      if (c.kind === 'centre') centre = true;
      if (c.kind === 'background' || c.kind === 'count') errs.push(`"${c.kind}" word inside an object phrase`);
    }
    const said = centre ? 4 : row !== null || col !== null ? cellOf(row ?? 1, col ?? 1) : o.cell;
    if (said !== o.cell || (centre && (row !== null || col !== null)))
      errs.push(`phrase "${words.join(' ')}" places object ${object} in cell ${said}, it is in ${o.cell}`);
  }
  return errs;
}

/** From the text alone: every content word names something the scene has ("left of"/"right of" are relations). */
export function falseTextFacts(text: string, s: WorldState): string[] {
  const ws = text.split(' ');
  const errs: string[] = [];
  ws.forEach((w, i) => {
    const c = CONTENT_WORDS.get(w);
    if (!c || ws.slice(i + 1).find((x) => !NUISANCE_WORDS.includes(x)) === 'of') return; // nuisance may split "left of"
    const ok =
      c.kind === 'shape'
        ? s.objects.some((o) => o.shape === c.value)
        : c.kind === 'colour'
          ? s.objects.some((o) => o.colour === c.value)
          : c.kind === 'size'
            ? s.objects.some((o) => o.size === c.value)
            : c.kind === 'background'
              ? s.background === c.value
              : c.kind === 'count'
                ? s.objects.length === c.value
                : c.kind === 'row'
                  ? s.objects.some((o) => Math.floor(o.cell / 3) === c.value)
                  : c.kind === 'col'
                    ? s.objects.some((o) => o.cell % 3 === c.value)
                    : s.objects.some((o) => o.cell === 4);
    if (!ok) errs.push(`"${w}" (${c.kind}) is not in the scene`);
  });
  return errs;
}
