import { Select } from '@mantine/core';
import { useState } from 'react';
import { CreateDialog, NameInput } from '@/components/CreateDialog';
import { EXPIRY_OPTIONS, expiryFromOption } from '../api/expiry';
import type { CreatedToken } from '../api/tokens';
import { useCreateToken } from '../hooks/useTokens';

export function CreateTokenButton({ onCreated }: { onCreated: (token: CreatedToken) => void }) {
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('90');
  const createMutation = useCreateToken();

  return (
    <CreateDialog
      label="New token"
      title="Create an API token"
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
      <NameInput value={name} onChange={setName} testId="token-name-input" description="What will use it, e.g. “training notebook”" />
      <Select
        label="Expires"
        data={EXPIRY_OPTIONS}
        value={expiry}
        onChange={(next) => next && setExpiry(next)}
        allowDeselect={false}
        data-testid="token-expiry-input"
      />
    </CreateDialog>
  );
}
