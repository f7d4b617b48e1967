import { Checkbox, PasswordInput, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CreateDialog } from '@/components/CreateDialog';
import { notifySuccess } from '@/lib/notifications';
import { useCreateUser } from '../hooks/useUsers';

/** "New user": username, optional email, password (Django's rules, checked by the server), administrator or not. */
export function CreateUserButton() {
  const { t } = useTranslation('admin');
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [isStaff, setIsStaff] = useState(false);
  const createMutation = useCreateUser();

  return (
    <CreateDialog
      label={t('users.create.label')}
      title={t('users.create.title')}
      testId="create-user"
      submitTestId="user-create-submit"
      mutation={createMutation}
      canSubmit={!!username.trim() && !!password}
      variables={() => ({ username: username.trim(), email: email.trim(), password, is_staff: isStaff })}
      onReset={() => {
        setUsername('');
        setEmail('');
        setPassword('');
        setIsStaff(false);
      }}
      onCreated={(user) => notifySuccess(t('users.create.created', { username: user.username }))}
    >
      <TextInput
        label={t('users.create.username')}
        description={t('users.create.usernameHelp')}
        required
        autoComplete="off"
        value={username}
        onChange={(event) => setUsername(event.currentTarget.value)}
        data-testid="user-username-input"
      />
      <TextInput
        label={t('users.create.email')}
        type="email"
        autoComplete="off"
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
        data-testid="user-email-input"
      />
      <PasswordInput
        label={t('users.create.password')}
        description={t('users.create.passwordHelp')}
        required
        autoComplete="new-password"
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
        data-testid="user-password-input"
      />
      <Checkbox
        label={t('users.create.admin')}
        description={t('users.create.adminHelp')}
        checked={isStaff}
        onChange={(event) => setIsStaff(event.currentTarget.checked)}
        data-testid="user-admin-input"
      />
    </CreateDialog>
  );
}
