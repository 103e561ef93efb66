// What a new password must be (decision 0081, after NIST SP 800-63B §3.1.1.2 and OWASP): long
// enough, and not one that attackers try first — a bundled list of common passwords
// (common-passwords.json says where it came from), the person's own email or the shop's name, or a
// run of one or two characters. No composition rules (a digit, a capital): they make passwords
// harder to remember, not to guess.
import common from './common-passwords.json' with { type: 'json' };

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;

const COMMON = new Set(common.passwords.map((p) => p.toLowerCase()));

const fold = (s: string): string => s.normalize('NFKC').toLowerCase().replace(/\s+/g, '');

/** Why `password` is refused, in a sentence for its field; null when it is acceptable. */
export function passwordProblem(password: string, personal: readonly string[] = []): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `Passwords need at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Passwords have at most ${MAX_PASSWORD_LENGTH} characters.`;
  const folded = fold(password);
  if (COMMON.has(password.toLowerCase()) || COMMON.has(folded))
    return 'This password is on the list of the most common passwords, which are tried first. Choose another.';
  if (new Set(folded).size <= 2) return 'This password repeats one or two characters. Choose another.';
  for (const word of personal) {
    const w = fold(word);
    const local = w.split('@')[0] ?? '';
    if ((w.length >= 4 && folded.includes(w)) || (local.length >= 4 && folded.includes(local)) || w.includes(folded))
      return 'The password must not be your email address or the shop’s name. Choose another.';
  }
  return null;
}
