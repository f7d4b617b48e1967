import { Select } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CreateDialog, NameInput } from '@/components/CreateDialog';
import { EXPIRY_OPTIONS, expiryFromOption } from '../api/expiry';
import type { CreatedToken } from '../api/tokens';
import { useCreateToken } from '../hooks/useTokens';

export function CreateTokenButton({ onCreated }: { onCreated: (token: CreatedToken) => void }) {
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('90');
  const createMutation = useCreateToken();
  const { t } = useTranslation('tokens');
  const expiryOptions = EXPIRY_OPTIONS.map((value) => ({
    value,
    label: value === 'never' ? t('expiry.never') : value === '365' ? t('expiry.year') : t('expiry.days', { count: Number(value) }),
  }));

  return (
    <CreateDialog
      label={t('create.label')}
      title={t('create.title')}
      testId="create-token"
      submitTestId="token-create-submit"
      mutation={createMutation}
      canSubmit={!!name.trim()}
      variables={() => {
        // Counted from the moment of the click, not from the last render.
        const expiresAt = expiryFromOption(expiry);
        return expiresAt ? { name: name.trim(), expires_at: expiresAt } : { name: name.trim() };
      }}
      onReset={() => {
        setName('');
        setExpiry('90');
      }}
      onCreated={onCreated}
    >
      <NameInput value={name} onChange={setName} testId="token-name-input" description={t('create.nameHint')} />
      <Select
        label={t('create.expires')}
        data={expiryOptions}
        value={expiry}
        onChange={(next) => next && setExpiry(next)}
        allowDeselect={false}
        data-testid="token-expiry-input"
      />
    </CreateDialog>
  );
}
