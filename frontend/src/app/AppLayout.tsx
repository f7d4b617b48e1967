import { Anchor, AppShell, Burger, Group, NavLink, Text, ThemeIcon } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, NavLink as RouterNavLink, Outlet, useLocation } from 'react-router';
import { UserMenu } from '@/features/auth';
import { WorkersIndicator } from '@/features/workers';

const NAV = [
  { to: '/workspaces', label: 'Workspaces', testId: 'nav-workspaces', also: ['/projects'] },
  { to: '/studies', label: 'AutoML studies', testId: 'nav-studies' },
  { to: '/jobs', label: 'Jobs', testId: 'nav-jobs' },
  { to: '/tokens', label: 'API tokens', testId: 'nav-tokens' },
];

export function AppLayout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const location = useLocation();
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="lg">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="sm">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Anchor component={Link} to="/workspaces" underline="never" c="inherit">
              <Group gap={8}>
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
          <Group gap="md">
            <WorkersIndicator />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm">
        <AppShell.Section grow>
          {NAV.map((item) => (
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
            label="API docs"
            description="OpenAPI reference"
            data-testid="nav-api-docs"
          />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
