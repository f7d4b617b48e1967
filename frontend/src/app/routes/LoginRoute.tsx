import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { LanguageSwitch, LoginForm, useMe } from '@/features/auth';

export function LoginRoute() {
  const { data: user } = useMe();
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  // Home ('/') sends each user on: the workspaces, or an annotator's labeling queue.
  const target = from && from !== '/login' ? from : '/';
  if (user) return <Navigate to={target} replace />;
  return (
    <Center mih="100vh" bg="var(--mantine-color-gray-0)">
      <Paper withBorder shadow="sm" p="xl" w={380} radius="lg">
        <Stack gap="lg">
          <Stack gap={2}>
            <Title order={2}>Sampan</Title>
            <Text c="dimmed" size="sm">
              {t('login.subtitle')}
            </Text>
          </Stack>
          <LoginForm onSuccess={() => navigate(target, { replace: true })} />
          <LanguageSwitch />
        </Stack>
      </Paper>
    </Center>
  );
}
