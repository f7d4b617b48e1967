import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { errorMessage } from '@/lib/notifications';
import { useLogin } from '../hooks/useAuth';

export function LoginForm({ onSuccess }: { onSuccess: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const loginMutation = useLogin();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    loginMutation.mutate({ username, password }, { onSuccess });
  };

  return (
    <form onSubmit={submit} data-testid="login-form" noValidate>
      <Stack>
        {loginMutation.isError && (
          <Alert color="red" variant="light" title="Sign-in failed" data-testid="login-error">
            {errorMessage(loginMutation.error)}
          </Alert>
        )}
        <TextInput
          label="Username"
          name="username"
          autoComplete="username"
          autoFocus
          required
          value={username}
          onChange={(event) => setUsername(event.currentTarget.value)}
          data-testid="login-username"
        />
        <PasswordInput
          label="Password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          data-testid="login-password"
        />
        <Button type="submit" loading={loginMutation.isPending} disabled={!username || !password} data-testid="login-submit">
          Sign in
        </Button>
      </Stack>
    </form>
  );
}
