import { Alert, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '@/components/PageHeader';
import { UsersPanel } from '@/features/admin';
import { useMe } from '@/features/auth';
import { AllLimitsPanel } from '@/features/workspaces';

/** The administrators' page: users, and every workspace's job limits; anyone else is told who can help. */
export function UsersRoute() {
  const { t } = useTranslation('admin');
  const { data: me } = useMe();
  if (!me) return null;
  return (
    <>
      <PageHeader title={t('users.title')} />
      {me.is_staff ? (
        <Tabs defaultValue="users" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="users" data-testid="admin-tab-users">
              {t('users.tabs.users')}
            </Tabs.Tab>
            <Tabs.Tab value="limits" data-testid="admin-tab-workspace-limits">
              {t('users.tabs.workspaceLimits')}
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="users" pt="md">
            <UsersPanel meId={me.id} />
          </Tabs.Panel>
          <Tabs.Panel value="limits" pt="md">
            <AllLimitsPanel />
          </Tabs.Panel>
        </Tabs>
      ) : (
        <Alert color="yellow" variant="light" title={t('users.onlyAdmins.title')} data-testid="users-only-admins">
          {t('users.onlyAdmins.body')}
        </Alert>
      )}
    </>
  );
}
