import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '@/components/PageHeader';
import { UsersPanel } from '@/features/admin';
import { useMe } from '@/features/auth';

/** The users page: platform administrators only; anyone else is told who can help. */
export function UsersRoute() {
  const { t } = useTranslation('admin');
  const { data: me } = useMe();
  if (!me) return null;
  return (
    <>
      <PageHeader title={t('users.title')} />
      {me.is_staff ? (
        <UsersPanel meId={me.id} />
      ) : (
        <Alert color="yellow" variant="light" title={t('users.onlyAdmins.title')} data-testid="users-only-admins">
          {t('users.onlyAdmins.body')}
        </Alert>
      )}
    </>
  );
}
