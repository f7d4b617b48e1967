import { Alert, Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { errorDetailLines, errorMessage } from '@/lib/notifications';
import type { CreatedToken } from '../api/tokens';
import { useCreateToken } from '../hooks/useTokens';

const EXPIRY_OPTIONS = [
  { value: 'never', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
];

/** The ISO expiry for an option of EXPIRY_OPTIONS, counted from `now`; null for "never". */
export function expiryFromOption(option: string, now: Date = new Date()): string | null {
  const days = Number(option);
  if (!Number.isFinite(days)) return null;
  return new Date(now.getTime() + days * 24 * 3600 * 1000).toISOString();
}

export function CreateTokenButton({ onCreated }: { onCreated: (token: CreatedToken) => void }) {
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('90');
  const createMutation = useCreateToken();

  const reset = () => {
    setName('');
    setExpiry('90');
    createMutation.reset();
    close();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const expiresAt = expiryFromOption(expiry);
    createMutation.mutate(expiresAt ? { name: name.trim(), expires_at: expiresAt } : { name: name.trim() }, {
      onSuccess: (token) => {
        reset();
        onCreated(token);
      },
    });
  };

  return (
    <>
      <Button onClick={open} data-testid="create-token">
        New token
      </Button>
      <Modal opened={opened} onClose={reset} title="Create an API token">
        <form onSubmit={submit}>
          <Stack>
            {createMutation.isError && (
              <Alert color="red" variant="light" data-testid="create-token-error">
                {[errorMessage(createMutation.error), ...errorDetailLines(createMutation.error)].join(' ')}
              </Alert>
            )}
            <TextInput
              label="Name"
              description="What will use it, e.g. “training notebook”"
              required
              data-autofocus
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              data-testid="token-name-input"
            />
            <Select
              label="Expires"
              data={EXPIRY_OPTIONS}
              value={expiry}
              onChange={(next) => next && setExpiry(next)}
              allowDeselect={false}
              data-testid="token-expiry-input"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                Cancel
              </Button>
              <Button type="submit" disabled={!name.trim()} loading={createMutation.isPending} data-testid="token-create-submit">
                Create
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
