import { PageHeader } from '@/components/PageHeader';
import { TokensPanel } from '@/features/tokens';

export function TokensRoute() {
  return (
    <>
      <PageHeader title="API tokens" />
      <TokensPanel />
    </>
  );
}
