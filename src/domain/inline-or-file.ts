// A secret the operator gives either inline (NAME) or as a file (NAME_FILE), never both: the one
// way configuration reads such values (certificates, keys, service account files).
import { readFileSync } from 'node:fs';

type Get = (name: string) => string | undefined;

/** The value of NAME, or the contents of the file NAME_FILE; `inline` rewrites an inline value (PEM `\n` escapes). */
export function inlineOrFile(get: Get, name: string, problems: string[], inline: (v: string) => string = (v) => v): string | undefined {
  const value = get(name);
  const file = get(`${name}_FILE`);
  if (value !== undefined && file !== undefined) {
    problems.push(`${name} and ${name}_FILE are alternatives: set one`);
    return undefined;
  }
  if (value !== undefined) return inline(value);
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`cannot read ${name}_FILE: ${(err as Error).message}`);
    return undefined;
  }
}
