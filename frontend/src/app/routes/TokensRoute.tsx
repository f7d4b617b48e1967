import { useTranslation } from 'react-i18next';
import { PageHeader } from '@/components/PageHeader';
import { TokensPanel } from '@/features/tokens';

export function TokensRoute() {
  const { t } = useTranslation('tokens');
  return (
    <>
      <PageHeader title={t('page.title')} />
      <TokensPanel />
    </>
  );
}
