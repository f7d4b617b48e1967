/**
 * The UI's languages: English and Simplified Chinese, with react-i18next.
 *
 * Catalogs live in `locales/<language>/<namespace>.json`, one namespace per feature (plus `common`,
 * `app` for the shell and `errors` for the server's error codes). A component takes the namespace it
 * owns: `const { t } = useTranslation('datasets')`, then `t('labels.title')`; keys are typed from
 * the English catalogs (resources.ts), so a missing key is a type error, and `catalogs.test.ts`
 * fails when the two languages disagree or a component renders a literal string.
 *
 * The language is the user's server-side preference once signed in (`User.language`), before that
 * the last one chosen on this browser, else the browser's own (zh* → zh-CN, anything else → en).
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { NAMESPACES, resources } from './resources';

export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language named in itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', 'zh-CN': '简体中文' };

const STORAGE_KEY = 'sampan.language';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The browser's preferred language mapped onto ours: any Chinese → zh-CN, anything else → en. */
export function browserLanguage(
  languages: readonly string[] = typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]),
): Language {
  for (const tag of languages) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

/** The language to start in before the server's preference is known. */
export function initialLanguage(): Language {
  try {
    const stored = typeof window === 'undefined' ? null : window.localStorage.getItem(STORAGE_KEY);
    if (isLanguage(stored)) return stored;
  } catch {
    // storage may be blocked; the browser's language is the fallback
  }
  return browserLanguage();
}

void i18n.use(initReactI18next).init({
  resources,
  lng: initialLanguage(),
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  ns: [...NAMESPACES],
  defaultNS: 'common',
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  react: { useSuspense: false },
  initAsync: false,
});
if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;

/** Switches the UI (and remembers the choice on this browser; the server keeps the user's). */
export function applyLanguage(language: Language): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // not remembered on this browser; the server-side preference still is
  }
  document.documentElement.lang = language;
  if (i18n.language !== language) void i18n.changeLanguage(language);
}

/** The language the UI is in now. */
export function currentLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : 'en';
}

/**
 * A key computed at run time (an error code, an enum value from the API): its message when the
 * catalog has one, else `fallback`. Prefer t('literal.key') everywhere else: those are type-checked.
 */
export function translateDynamic(key: string, fallback: string, options: Record<string, unknown> = {}): string {
  if (!i18n.exists(key)) return fallback;
  return (i18n.t as unknown as (key: string, options: Record<string, unknown>) => string)(key, options);
}

export { i18n };
