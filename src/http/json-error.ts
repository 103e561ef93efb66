// Where a request body stops being JSON, said so that a person can find it: V8's JSON.parse names
// the position of most errors ("… in JSON at position 7 (line 1 column 8)"), but for an unexpected
// token it quotes the text instead, and at the end it says only "Unexpected end of JSON input".

/** The offset at which `text` stops being JSON, from `err` (JSON.parse's SyntaxError on it). */
function errorOffset(text: string, message: string): number | null {
  const at = /at position (\d+)/.exec(message);
  if (at !== null) return Number(at[1]);
  if (/^Unexpected end of JSON input/.test(message)) return text.length;
  if (!/^Unexpected token/.test(message)) return null;
  // The first prefix that fails on that token rather than by ending early ends with it: found by
  // halving, which parses about log2(length) prefixes of a body already bounded by the body limit.
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let ended = false;
    try {
      JSON.parse(text.slice(0, mid));
    } catch (e) {
      ended = !/^Unexpected token/.test((e as Error).message);
    }
    if (ended) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** "The request body is not valid JSON: <what> at line L, column C (character N)." */
export function describeJsonError(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // V8's reason without its own position or its quote of the text.
  const what = message
    .replace(/, ".*" is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/ at position \d+.*$/s, '');
  const offset = errorOffset(text, message);
  if (offset === null) return `The request body is not valid JSON: ${what}.`;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `The request body is not valid JSON: ${what} at line ${line}, column ${column} (character ${offset + 1}).`;
}
