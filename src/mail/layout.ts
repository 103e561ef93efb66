// One layout for every mail: the kind's parts (mail-kind.ts) as plain text and as HTML, the shop's
// name in the footer. The HTML is a single column of inline-styled tables, which mail clients
// render alike; every value is escaped, so a shop called "<b>Joe's</b>" is printed, not obeyed.
import en from '../i18n/messages/mail/layout/en.json' with { type: 'json' };
import fr from '../i18n/messages/mail/layout/fr.json' with { type: 'json' };
import es from '../i18n/messages/mail/layout/es.json' with { type: 'json' };
import de from '../i18n/messages/mail/layout/de.json' with { type: 'json' };
import { checkedCatalogs, translator, type Catalog, type Message } from '../i18n/messages.ts';
import type { Language } from '../i18n/language.ts';
import type { MailContent, MailLanguage } from './mail-kind.ts';

type LayoutKey = keyof typeof en;

const LAYOUT = checkedCatalogs<Record<LayoutKey, Message>>('mail/layout', { en, fr, es, de } as unknown as Record<Language, Catalog>);

export type RenderedMail = { subject: string; text: string; html: string };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export function renderMail(lang: MailLanguage, shop: string, content: MailContent): RenderedMail {
  const t = translator<LayoutKey>(lang, LAYOUT[lang], false);
  const footer = t.t('footer', { shop });
  const outro = content.outro ?? [];
  const text = [
    ...content.intro,
    ...(content.action === undefined ? [] : [`${content.action.label}:\n${content.action.url}`]),
    ...outro,
    `-- \n${footer}`,
  ].join('\n\n');
  const p = (s: string): string => `<p style="margin:0 0 16px">${escapeHtml(s)}</p>`;
  const action =
    content.action === undefined
      ? ''
      : `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="background:#1d4ed8;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:bold;display:inline-block">${escapeHtml(content.action.label)}</a></p>` +
        `<p style="margin:0 0 16px;font-size:13px;color:#4b5563">${escapeHtml(t.t('link_fallback'))}<br><a href="${escapeHtml(content.action.url)}" style="color:#1d4ed8;word-break:break-all">${escapeHtml(content.action.url)}</a></p>`;
  const html = `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px"><tr><td style="padding:24px;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:#111827">
<p style="margin:0 0 16px;font-size:14px;font-weight:bold;color:#374151">${escapeHtml(shop)}</p>
${content.intro.map(p).join('\n')}
${action}
${outro.map(p).join('\n')}
<p style="margin:24px 0 0;font-size:13px;color:#4b5563">${escapeHtml(footer)}</p>
</td></tr></table>
</td></tr></table>
</body></html>
`;
  return { subject: content.subject, text, html };
}
