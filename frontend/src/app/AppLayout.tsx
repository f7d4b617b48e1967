import { Anchor, AppShell, Burger, Group, NavLink, Overlay, Text, ThemeIcon } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { Link, NavLink as RouterNavLink, Outlet, useLocation } from 'react-router';
import { UserMenu, useMe } from '@/features/auth';
import { useHasAssignments } from '@/features/labeling';
import { WorkersIndicator } from '@/features/workers';
import { useAnnotatorOnly } from './useAnnotatorOnly';

/**
 * Below this width the sidebar collapses behind a burger in the header and opens over the page
 * (Mantine's `lg`, 75em = 1200 px): a 1024 px window keeps its whole width for the page.
 */
export const NAVBAR_BREAKPOINT = 'lg';
const NAVBAR_WIDTH = 230;

type NavItem = { to: string; label: string; testId: string; also?: string[] };

export function AppLayout() {
  const { t } = useTranslation('app');
  const [opened, { toggle, close }] = useDisclosure(false);
  const location = useLocation();
  const me = useMe();
  const { annotatorOnly } = useAnnotatorOnly();
  // Others get "My labeling" once something is assigned to them.
  const hasAssignments = useHasAssignments({ enabled: !annotatorOnly });
  const myLabeling: NavItem = { to: '/labeling', label: t('nav.myLabeling'), testId: 'nav-my-labeling' };
  const nav: NavItem[] = annotatorOnly
    ? [myLabeling]
    : [
        { to: '/workspaces', label: t('nav.workspaces'), testId: 'nav-workspaces', also: ['/projects'] },
        ...(hasAssignments.data ? [myLabeling] : []),
        { to: '/studies', label: t('nav.studies'), testId: 'nav-studies' },
        { to: '/jobs', label: t('nav.jobs'), testId: 'nav-jobs' },
        { to: '/targets', label: t('nav.targets'), testId: 'nav-targets' },
        { to: '/tokens', label: t('nav.tokens'), testId: 'nav-tokens' },
        ...(me.data?.is_staff ? [{ to: '/users', label: t('nav.users'), testId: 'nav-users' }] : []),
      ];
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: NAVBAR_WIDTH, breakpoint: NAVBAR_BREAKPOINT, collapsed: { mobile: !opened } }}
      padding={{ base: 'md', lg: 'lg' }}
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom={NAVBAR_BREAKPOINT}
              size="sm"
              aria-label={opened ? t('nav.close') : t('nav.open')}
              aria-expanded={opened}
              data-testid="nav-burger"
            />
            <Anchor component={Link} to={annotatorOnly ? '/labeling' : '/workspaces'} underline="never" c="inherit" aria-label={t('home')} onClick={close}>
              <Group gap={8} wrap="nowrap">
                <ThemeIcon radius="md" size="md">
                  <Text fw={800} size="sm">
                    S
                  </Text>
                </ThemeIcon>
                <Text fw={700} size="lg">
                  Sampan
                </Text>
              </Group>
            </Anchor>
          </Group>
          <Group gap="md" wrap="nowrap">
            <WorkersIndicator />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      {opened && <Overlay hiddenFrom={NAVBAR_BREAKPOINT} fixed zIndex={99} backgroundOpacity={0.25} onClick={close} data-testid="nav-overlay" />}
      <AppShell.Navbar p="sm" w={NAVBAR_WIDTH} aria-label={t('nav.label')} data-testid="navbar" data-opened={opened || undefined}>
        <AppShell.Section grow>
          {nav.map((item) => (
            <NavLink
              key={item.to}
              component={RouterNavLink}
              to={item.to}
              label={item.label}
              active={[item.to, ...(item.also ?? [])].some((prefix) => location.pathname.startsWith(prefix))}
              onClick={close}
              data-testid={item.testId}
            />
          ))}
        </AppShell.Section>
        <AppShell.Section>
          <NavLink
            component="a"
            href="/api/docs/"
            target="_blank"
            rel="noreferrer"
            label={t('nav.apiDocs')}
            description={t('nav.apiDocsDescription')}
            data-testid="nav-api-docs"
          />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main miw={0}>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
