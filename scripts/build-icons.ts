// Renders the customer page's home-screen icons from web/icon.svg (decision 0023): PNG 192 and
// 512 for the web app manifest (what Android and desktop browsers install with), and the 180 px
// apple-touch-icon iPhones put on the Home Screen (opaque: iOS rounds the corners itself and would
// show transparent ones black), and the Wallet pass's icon at its three scales. They are build
// output, never committed: run by `npm run build:web` (so by npm start, npm test and the release)
// into dist/web/icons, or into the folder given.
//
//   node scripts/build-icons.ts [OUT]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

const root = path.resolve(import.meta.dirname, '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist/web/icons'));
const svg = readFileSync(path.join(root, 'web/icon.svg'));
/** The icon's own background, which fills the apple-touch-icon's corners. */
const BACKGROUND = '#ffd60a';
const SVG_UNITS = 96;

async function render(size: number, opaque: boolean): Promise<Buffer> {
  // Rendered at the target size (density scales the SVG's 96 units), not scaled down from a bitmap.
  let image = sharp(svg, { density: (72 * size) / SVG_UNITS }).resize(size, size);
  if (opaque) image = image.flatten({ background: BACKGROUND });
  return image.png({ compressionLevel: 9, palette: true }).toBuffer();
}

mkdirSync(out, { recursive: true });
const files: Array<[string, number, boolean]> = [
  ['icon-192.png', 192, false],
  ['icon-512.png', 512, false],
  ['apple-touch-icon.png', 180, true],
  // The Apple Wallet pass's icon (src/channels/wallet/apple/pass.ts): 29 pt at 1x, 2x and 3x.
  ['pass-icon.png', 29, false],
  ['pass-icon@2x.png', 58, false],
  ['pass-icon@3x.png', 87, false],
];
for (const [name, size, opaque] of files) writeFileSync(path.join(out, name), await render(size, opaque));
