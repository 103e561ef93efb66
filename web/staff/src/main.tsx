import { render } from 'preact';
import { App } from './app.tsx';
import { preferredLanguage, setLanguage } from './i18n/i18n.ts';
import './styles.css';
import './print.css';

// The texts of the page's language are in place before the first paint.
const lang = preferredLanguage();
void setLanguage(lang).then(() => render(<App initialLang={lang} />, document.getElementById('app')!));
