// The customer page's and the board's languages (SUPPORTED_LANGUAGES in src/domain/branch-settings.ts),
// each named in itself so a manager finds their own whatever the staff page's language.
export const CUSTOMER_LANGUAGES: Array<[string, string]> = [
  ['en', 'English'],
  ['fr', 'Français'],
  ['es', 'Español'],
  ['de', 'Deutsch'],
  ['it', 'Italiano'],
  ['pt', 'Português'],
  ['nl', 'Nederlands'],
  ['ar', 'العربية'],
];
