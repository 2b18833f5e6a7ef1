// Caption-specific nuisance: each caption draws one style and sprinkles n of its words through the text.
// Independent across captions (own stream per caption), consistent inside one (probability c per token).
import type { WorldRng } from './rng';

// 16 styles x 6 words = 96 nuisance tokens, none of them a content or template word.
export const STYLES: readonly (readonly string[])[] = [
  ['wow', 'lovely', 'nice', 'great', 'cool', 'yay'], // cheerful
  ['maybe', 'perhaps', 'probably', 'possibly', 'apparently', 'seemingly'], // hedging
  ['um', 'uh', 'er', 'hmm', 'erm', 'uhh'], // fillers
  ['indeed', 'moreover', 'thus', 'hence', 'notably', 'furthermore'], // formal
  ['dude', 'lol', 'bro', 'yeah', 'totally', 'legit'], // slang
  ['really', 'very', 'truly', 'super', 'so', 'extremely'], // emphatic
  ['btw', 'fyi', 'imo', 'tbh', 'afaik', 'iirc'], // side remarks
  ['now', 'today', 'currently', 'still', 'already', 'again'], // time
  ['oh', 'ah', 'whoa', 'gosh', 'golly', 'yikes'], // exclamations
  ['clearly', 'evidently', 'presumably', 'arguably', 'essentially', 'basically'], // academic
  ['please', 'kindly', 'thanks', 'sorry', 'cheers', 'regards'], // polite
  ['somehow', 'somewhat', 'kinda', 'sorta', 'roughly', 'approximately'], // vague
  ['then', 'suddenly', 'meanwhile', 'finally', 'afterwards', 'eventually'], // narrative
  ['sadly', 'happily', 'luckily', 'honestly', 'frankly', 'hopefully'], // emotional
  ['ok', 'okay', 'noted', 'copy', 'roger', 'ack'], // radio
  ['hooray', 'zoinks', 'yippee', 'huzzah', 'bingo', 'voila'], // whimsical
];
export const NUISANCE_WORDS: readonly string[] = STYLES.flat();
// word -> style id, for read-outs and tests.
export const STYLE_OF: ReadonlyMap<string, number> = new Map(STYLES.flatMap((ws, s) => ws.map((w) => [w, s] as const)));

export const NUISANCE_LEVELS = ['none', 'weak', 'medium', 'strong'] as const;
export type NuisanceLevel = (typeof NUISANCE_LEVELS)[number];
// tokens: nuisance tokens per caption; consistency: P(a token comes from the caption's own style), else any of the 96.
export type Nuisance = { tokens: number; consistency: number };
export const NUISANCE: Record<NuisanceLevel, Nuisance> = {
  none: { tokens: 0, consistency: 0 },
  weak: { tokens: 2, consistency: 0.5 },
  medium: { tokens: 3, consistency: 0.8 },
  strong: { tokens: 6, consistency: 1 },
};

/** Insert nuisance words into `words` (length L), one per 1/n of the caption with jitter inside it,
 *  so that most crops of a caption hold some. Returns the gap index (0..L) and word of each insertion. */
export function drawNuisance(
  L: number,
  style: number,
  { tokens: n, consistency: c }: Nuisance,
  rng: WorldRng,
): { gap: number; word: string }[] {
  const out: { gap: number; word: string }[] = [];
  for (let j = 0; j < n; j++) {
    const gap = Math.min(L, Math.floor(((j + rng.uniform()) / n) * (L + 1)));
    const word = rng.chance(c) ? rng.pick(STYLES[style]) : rng.pick(NUISANCE_WORDS);
    out.push({ gap, word });
  }
  return out;
}
