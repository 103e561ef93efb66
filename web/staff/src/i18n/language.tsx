// The chosen language for the picker in the account menu; texts themselves come from t().
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Lang } from './i18n.ts';

export const LanguageContext = createContext<{ lang: Lang; setLang: (l: Lang) => void }>({ lang: 'en', setLang: () => {} });

export const useLanguage = () => useContext(LanguageContext);
