// Where the links of the account mails (invitations, email changes, deletion; decisions 0082,
// 0083) lead: a screen of the staff page, with the token in the fragment, which browsers never
// send to a server, so it stays out of access logs and Referer headers.
import type { Services } from '../core/ctx.ts';

export const staffLink = (services: Services, screen: string, token?: string): string =>
  `${services.config.publicUrl.replace(/\/$/, '')}/staff/${screen}${token === undefined ? '' : `#${token}`}`;
