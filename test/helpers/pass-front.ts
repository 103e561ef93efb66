// The front of an Apple Wallet pass, drawn from its pass.json the way Wallet lays it out, as a
// standalone HTML page a browser test can screenshot (issue 28, item 5). Wallet itself cannot run
// here, so this is the closest independent picture of what a customer's phone shows: the logo and
// logoText top left, the header fields top right, the primary field large, then the secondary and
// auxiliary rows, and the barcode (QR, drawn by the repo's `qrcode` package) in a white box at the
// bottom with its altText, on the pass's background, foreground and label colours. It accepts any
// pass.json of the generic, storeCard, eventTicket, coupon or boardingPass style; fields it does
// not draw (back fields, relevant dates, locations) are not on the front in Wallet either.
import QRCode from 'qrcode';

export type PassField = {
  key: string;
  label?: string;
  value: string | number;
  textAlignment?: 'PKTextAlignmentLeft' | 'PKTextAlignmentCenter' | 'PKTextAlignmentRight' | 'PKTextAlignmentNatural';
};
type FieldSet = {
  headerFields?: PassField[];
  primaryFields?: PassField[];
  secondaryFields?: PassField[];
  auxiliaryFields?: PassField[];
  backFields?: PassField[];
};
type Barcode = { format: string; message: string; messageEncoding?: string; altText?: string };

export type PassJson = {
  organizationName?: string;
  description?: string;
  logoText?: string;
  foregroundColor?: string;
  backgroundColor?: string;
  labelColor?: string;
  barcodes?: Barcode[];
  /** The pre-iOS 9 single barcode, still read when `barcodes` is absent. */
  barcode?: Barcode;
} & { [style in (typeof STYLES)[number]]?: FieldSet } & Record<string, unknown>;

/** PNG bytes of the pass's images, as the .pkpass carries them (icon.png, logo.png). */
export type PassImages = { icon?: Uint8Array; logo?: Uint8Array };

const STYLES = ['boardingPass', 'coupon', 'eventTicket', 'generic', 'storeCard'] as const;

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const png = (bytes: Uint8Array): string => `data:image/png;base64,${Buffer.from(bytes).toString('base64')}`;
/** pass.json colours are CSS `rgb(r, g, b)` strings; anything else falls back to Wallet's default. */
const colour = (value: string | undefined, fallback: string): string =>
  value !== undefined && /^rgba?\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*(,\s*[\d.]+\s*)?\)$/.test(value) ? value : fallback;

const ALIGN: Record<string, string> = {
  PKTextAlignmentLeft: 'left',
  PKTextAlignmentCenter: 'center',
  PKTextAlignmentRight: 'right',
  PKTextAlignmentNatural: 'start',
};

export function passStyle(pass: PassJson): (typeof STYLES)[number] {
  const style = STYLES.find((s) => pass[s] !== undefined);
  if (style === undefined) throw new Error(`pass.json has none of the styles ${STYLES.join(', ')}`);
  return style;
}

function field(f: PassField, cls: string, defaultAlign = 'start'): string {
  const align = ALIGN[f.textAlignment ?? ''] ?? defaultAlign;
  const label = f.label === undefined ? '' : `<div class="label">${esc(f.label)}</div>`;
  return `<div class="field ${cls}" data-key="${esc(f.key)}" style="text-align:${align}">${label}<div class="value">${esc(String(f.value))}</div></div>`;
}

/** Wallet aligns header fields right, and the last of several fields in a row right. */
const row = (fields: PassField[] | undefined, cls: string): string =>
  fields === undefined || fields.length === 0
    ? ''
    : `<div class="row ${cls}">${fields
        .map((f, i) => field(f, cls, cls === 'header' || (i === fields.length - 1 && fields.length > 1) ? 'right' : 'start'))
        .join('')}</div>`;

/** The QR (or, for other formats, the message as text: Wallet would draw PDF417/Aztec/Code 128). */
async function barcode(b: Barcode | undefined): Promise<string> {
  if (b === undefined) return '';
  const alt = b.altText === undefined ? '' : `<div class="alt">${esc(b.altText)}</div>`;
  if (b.format !== 'PKBarcodeFormatQR') return `<div class="barcode"><div class="code-text">${esc(b.message)}</div>${alt}</div>`;
  const svg = await QRCode.toString(b.message, { type: 'svg', margin: 0, errorCorrectionLevel: 'M' });
  return `<div class="barcode" data-message="${esc(b.message)}"><div class="qr" role="img" aria-label="QR code">${svg}</div>${alt}</div>`;
}

/** A standalone page showing the pass's front, centred on a phone-sized screen. */
export async function passFrontHtml(pass: PassJson, images: PassImages = {}): Promise<string> {
  const style = passStyle(pass);
  const fields = pass[style]!;
  const fg = colour(pass.foregroundColor, 'rgb(0, 0, 0)');
  const bg = colour(pass.backgroundColor, 'rgb(255, 255, 255)');
  const label = colour(pass.labelColor, fg);
  const logoImage = images.logo ?? images.icon;
  const logo = logoImage === undefined ? '' : `<img class="logo" alt="" src="${png(logoImage)}">`;
  const logoText = pass.logoText === undefined ? '' : `<div class="logo-text">${esc(pass.logoText)}</div>`;
  const title = pass.description ?? pass.organizationName ?? 'Pass';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>
*{box-sizing:border-box;margin:0}
body{font-family:-apple-system,'SF Pro Text','Helvetica Neue',Helvetica,Arial,sans-serif;background:#1c1c1e;min-height:100vh;display:flex;align-items:flex-start;justify-content:center;padding:48px 16px}
.pass{width:340px;border-radius:14px;background:${bg};color:${fg};padding:10px 14px 18px;box-shadow:0 8px 30px rgba(0,0,0,.5)}
.top{display:flex;align-items:center;gap:8px;min-height:44px}
.logo{max-height:40px;max-width:120px;border-radius:8px}
.logo-text{font-size:17px;font-weight:600;flex:1;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.top .row{display:flex;gap:12px;margin-left:auto}
.label{color:${label};font-size:11px;font-weight:600;text-transform:uppercase;letter-spacing:.03em}
.value{font-size:15px}
.header .value{font-size:17px}
.primary{margin:22px 0 18px}
.primary .value{font-size:52px;font-weight:300;line-height:1.05;letter-spacing:-.01em}
.primary .label{font-size:12px}
.row.secondary,.row.auxiliary{display:flex;justify-content:space-between;gap:16px;margin-top:14px}
.row .field{min-width:0}
.barcode{margin:26px auto 0;width:max-content;background:#fff;color:#000;border-radius:8px;padding:10px 10px 6px;text-align:center}
.qr svg{display:block;width:148px;height:148px}
.alt{font-size:12px;margin-top:5px}
.code-text{font:12px ui-monospace,monospace;max-width:240px;overflow-wrap:anywhere}
</style></head><body><main class="pass ${style}" aria-label="${esc(title)}">
<div class="top">${logo}${logoText}${row(fields.headerFields, 'header')}</div>
${row(fields.primaryFields, 'primary')}${row(fields.secondaryFields, 'secondary')}${row(fields.auxiliaryFields, 'auxiliary')}
${await barcode(pass.barcodes?.[0] ?? pass.barcode)}
</main></body></html>`;
}
