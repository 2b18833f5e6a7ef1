// The one check every dataset passes after it is read, whatever its format, so train, experiment, embed, inspect
// and the GUI agree on what is a usable dataset and say so in the same words.
import type { Dataset } from '../../shared/dataset';
import { InputError } from '../errors';

// Ids unique (image and caption rows pair by id), every caption has a word, the evaluation caption exists.
// `where(i)` names image i in the source (file:line, or file: images[i]) for the message.
export function validateDataset(
  ds: Dataset,
  source: string,
  where: (i: number) => string = (i) => `${source}: images[${i}]`,
): Dataset {
  if (!ds.images.length) throw new InputError(`${source}: no images`);
  const first = new Map<string, number>();
  ds.images.forEach((im, i) => {
    const prev = first.get(im.id);
    if (prev !== undefined)
      throw new InputError(
        `${where(i)}: photo id '${im.id}' repeats ${where(prev).replace(`${source}: `, '')}; image ids must be unique (image and caption rows pair by id)`,
      );
    first.set(im.id, i);
    const blank = im.captions.findIndex((c) => !c.text.trim());
    if (blank >= 0)
      throw new InputError(
        `${where(i)}: (${im.id}) caption ${blank} is blank (${JSON.stringify(im.captions[blank].text)})`,
      );
    if (im.evalCaption >= im.captions.length)
      throw new InputError(
        `${where(i)}: image ${im.id} has evalCaption ${im.evalCaption} but ${im.captions.length} captions`,
      );
  });
  return ds;
}
