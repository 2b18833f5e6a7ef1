// Theory inputs are validated here with the schemas of shared/theory.ts, so bad input names what it was for.
import type { z } from 'zod';
import { issuePath, issueText } from '../../shared/issues';
import { InputError } from '../errors';

// Parse `input` with `schema`, turning zod issues into one InputError that names `what`.
export function parseParams<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const out = schema.safeParse(input);
  if (out.success) return out.data;
  const issues = out.error.issues.map((i) => `${issuePath(i) || '(root)'}: ${issueText(i)}`).join('; ');
  throw new InputError(`${what}: ${issues}`);
}
