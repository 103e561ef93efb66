// A QR code drawn in the browser, for links that are not tickets (a display board's TV link).
// The library is loaded on first use, so the counter board never downloads it.
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';

export function QrImage({ text, label, size = 240 }: { text: string; label: string; size?: number }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    import('qrcode')
      .then((m) => m.default.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, scale: 8 }))
      .then(
        (url) => {
          if (live) setSrc(url);
        },
        () => {},
      );
    return () => {
      live = false;
    };
  }, [text]);
  return src === null ? <p class="empty">{t('qr.drawing')}</p> : <img class="qr" src={src} width={size} height={size} alt={label} />;
}
