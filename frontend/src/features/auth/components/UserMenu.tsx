import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useLogout, useMe } from '../hooks/useAuth';
import { LanguageSwitch } from './LanguageSwitch';

export function UserMenu() {
  const { data: user } = useMe();
  const logoutMutation = useLogout();
  const navigate = useNavigate();
  const { t } = useTranslation('auth');
  if (!user) return null;

  return (
    <Menu position="bottom-end" withArrow shadow="md" width={240}>
      <Menu.Target>
        <UnstyledButton data-testid="user-menu" aria-label={t('menu.label')}>
          <Group gap="xs" wrap="nowrap">
            <Avatar size="sm" radius="xl" color="blue">
              {user.username.slice(0, 2).toUpperCase()}
            </Avatar>
            <Text size="sm" fw={500} visibleFrom="sm">
              {user.username}
            </Text>
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          {t(user.is_staff ? 'menu.signedInAsStaff' : 'menu.signedInAs', { username: user.username })}
        </Menu.Label>
        <Menu.Item component="div" closeMenuOnClick={false} data-testid="language-item">
          <LanguageSwitch />
        </Menu.Item>
        <Menu.Divider />
        {user.is_staff && (
          <Menu.Item component="a" href="/admin/">
            {t('menu.djangoAdmin')}
          </Menu.Item>
        )}
        <Menu.Item
          color="red"
          data-testid="logout"
          onClick={() => logoutMutation.mutate(undefined, { onSettled: () => navigate('/login', { replace: true }) })}
        >
          {t('menu.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
