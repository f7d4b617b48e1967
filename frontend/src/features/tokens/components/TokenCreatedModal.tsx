import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';

/** Shows a new token's key: the only time the server ever returns it. */
export function TokenCreatedModal({ token, onClose }: { token: { name: string; key: string } | null; onClose: () => void }) {
  return (
    <Modal
      opened={token !== null}
      onClose={onClose}
      title="Token created"
      closeOnClickOutside={false}
      closeOnEscape={false}
      size="lg"
    >
      {token && (
        <Stack>
          <Alert color="yellow" variant="light" title="Copy this key now" data-testid="token-key-warning">
            This is the only time the key for <b>{token.name}</b> is shown. Sampan stores only a hash of it; if you lose it,
            revoke the token and create a new one.
          </Alert>
          <Code block fz="sm" data-testid="token-key" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {token.key}
          </Code>
          <Text size="xs" c="dimmed">
            Send it as <Code>Authorization: Bearer &lt;key&gt;</Code>.
          </Text>
          <Group justify="space-between">
            <CopyButton value={token.key}>
              {({ copied, copy }) => (
                <Button variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} data-testid="token-key-copy">
                  {copied ? 'Copied' : 'Copy key'}
                </Button>
              )}
            </CopyButton>
            <Button onClick={onClose} data-testid="token-key-done">
              I have copied it
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
