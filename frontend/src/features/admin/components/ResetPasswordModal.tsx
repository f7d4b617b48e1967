import { Alert, Button, Code, CopyButton, Group, Modal, PasswordInput, SegmentedControl, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { errorDetailLines, errorMessage, notifySuccess } from '@/lib/notifications';
import type { AdminUser } from '../api/users';
import { useResetPassword } from '../hooks/useUsers';

/** Sets a user's password (typed here, checked by the server) or generates one, shown once. */
export function ResetPasswordModal({ user, onClose }: { user: AdminUser | null; onClose: () => void }) {
  const { t } = useTranslation(['admin', 'common']);
  const [mode, setMode] = useState<'set' | 'generate'>('set');
  const [password, setPassword] = useState('');
  const [generated, setGenerated] = useState<string | null>(null);
  const resetMutation = useResetPassword();
  const username = user?.username ?? '';

  const close = () => {
    setMode('set');
    setPassword('');
    setGenerated(null);
    resetMutation.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!user || (mode === 'set' && !password)) return;
    resetMutation.mutate(
      { id: user.id, password: mode === 'set' ? password : undefined },
      {
        onSuccess: (result) => {
          if (result.password) {
            setGenerated(result.password);
          } else {
            notifySuccess(t('users.done.passwordSet', { username }));
            close();
          }
        },
      },
    );
  };

  const detailLines = resetMutation.isError ? errorDetailLines(resetMutation.error) : [];
  return (
    <Modal
      opened={user !== null}
      onClose={close}
      title={generated ? t('users.reset.generatedTitle', { username }) : t('users.reset.title', { username })}
      closeOnClickOutside={!generated}
    >
      {generated ? (
        <Stack>
          <Alert color="yellow" variant="light" data-testid="generated-password-warning">
            {t('users.reset.generatedWarning', { username })}
          </Alert>
          <Code block fz="md" data-testid="generated-password">
            {generated}
          </Code>
          <Group justify="space-between">
            <CopyButton value={generated}>
              {({ copied, copy }) => (
                <Button variant="light" color={copied ? 'teal' : 'blue'} onClick={copy}>
                  {copied ? t('common:actions.copied') : t('users.reset.copy')}
                </Button>
              )}
            </CopyButton>
            <Button onClick={close} data-testid="generated-password-done">
              {t('users.reset.done')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <SegmentedControl
              value={mode}
              onChange={(next) => setMode(next as 'set' | 'generate')}
              data={[
                { value: 'set', label: t('users.reset.set') },
                { value: 'generate', label: t('users.reset.generate') },
              ]}
              data-testid="reset-mode"
            />
            {resetMutation.isError && (
              <Alert color="red" variant="light" data-testid="reset-password-error">
                {errorMessage(resetMutation.error)}
                {detailLines.map((line) => <Text key={line} size="sm">{line}</Text>)}
              </Alert>
            )}
            {mode === 'set' && (
              <PasswordInput
                label={t('users.reset.password')}
                description={t('users.create.passwordHelp')}
                autoComplete="new-password"
                value={password}
                onChange={(event) => setPassword(event.currentTarget.value)}
                data-testid="reset-password-input"
              />
            )}
            <Text size="xs" c="dimmed">
              {t('users.reset.sessionsEnd')}
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('common:actions.cancel')}
              </Button>
              <WithReason reason={mode === 'set' && !password ? t('users.reset.typeFirst') : null}>
                <Button type="submit" disabled={mode === 'set' && !password} loading={resetMutation.isPending} data-testid="reset-password-submit">
                  {t('users.reset.submit')}
                </Button>
              </WithReason>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
