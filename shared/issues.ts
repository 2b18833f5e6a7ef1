// Validation issues in words, for people: `seeds.1: expected a number` rather than zod's JSON. The GUI shows them
// next to the field they name; the service's dispatch sends them back as the error of a bad call.
import type { z } from 'zod';

const things: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'yes or no',
  array: 'a list',
  object: 'a group of settings',
};

export function issueText(i: z.core.$ZodIssue): string {
  switch (i.code) {
    case 'invalid_type':
      return `expected ${things[i.expected] ?? i.expected}`;
    case 'too_small':
      return i.origin === 'array'
        ? `needs at least ${i.minimum} item${Number(i.minimum) === 1 ? '' : 's'}`
        : i.origin === 'string'
          ? Number(i.minimum) === 1
            ? 'cannot be empty'
            : `needs at least ${i.minimum} characters`
          : `must be ${i.inclusive ? 'at least' : 'more than'} ${i.minimum}`;
    case 'too_big':
      return i.origin === 'array'
        ? `takes at most ${i.maximum} items`
        : i.origin === 'string'
          ? `takes at most ${i.maximum} characters`
          : `must be ${i.inclusive ? 'at most' : 'less than'} ${i.maximum}`;
    case 'invalid_value':
      return `must be one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return i.message;
  }
}

export const issuePath = (i: z.core.$ZodIssue): string => i.path.map(String).join('.');

// All issues of a failed parse as one line: `seed: expected a number; k: must be at least 1`.
export const issuesText = (e: z.ZodError): string =>
  e.issues.map((i) => `${issuePath(i) || 'input'}: ${issueText(i)}`).join('; ');
