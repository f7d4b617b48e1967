import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { errorMessage } from '@/lib/notifications';
import { useLogin } from '../hooks/useAuth';

export function LoginForm({ onSuccess }: { onSuccess: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const loginMutation = useLogin();
  const { t } = useTranslation('auth');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    loginMutation.mutate({ username, password }, { onSuccess });
  };

  return (
    <form onSubmit={submit} data-testid="login-form" noValidate>
      <Stack>
        {loginMutation.isError && (
          <Alert color="red" variant="light" title={t('login.failed')} data-testid="login-error">
            {errorMessage(loginMutation.error)}
          </Alert>
        )}
        <TextInput
          label={t('login.username')}
          name="username"
          autoComplete="username"
          autoFocus
          required
          value={username}
          onChange={(event) => setUsername(event.currentTarget.value)}
          data-testid="login-username"
        />
        <PasswordInput
          label={t('login.password')}
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          data-testid="login-password"
        />
        <WithReason reason={!username || !password ? t('login.fillIn') : null} block>
          <Button type="submit" fullWidth loading={loginMutation.isPending} disabled={!username || !password} data-testid="login-submit">
            {t('login.submit')}
          </Button>
        </WithReason>
      </Stack>
    </form>
  );
}
