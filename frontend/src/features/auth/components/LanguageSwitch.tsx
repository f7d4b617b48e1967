import { SegmentedControl } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { currentLanguage, isLanguage, LANGUAGE_NAMES, LANGUAGES } from '@/i18n';
import { useSetLanguage } from '../hooks/useAuth';

/** English | 简体中文: switches at once; saved to the account when signed in. */
export function LanguageSwitch({ size = 'xs' }: { size?: 'xs' | 'sm' }) {
  const { t, i18n } = useTranslation();
  const setLanguage = useSetLanguage();
  return (
    <SegmentedControl
      size={size}
      aria-label={t('language.label')}
      data-testid="language-switch"
      value={isLanguage(i18n.language) ? i18n.language : currentLanguage()}
      onChange={(value) => isLanguage(value) && setLanguage(value)}
      data={LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))}
    />
  );
}
