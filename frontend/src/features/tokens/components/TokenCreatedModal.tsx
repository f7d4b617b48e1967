import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';

/** Shows a new token's key: the only time the server ever returns it. */
export function TokenCreatedModal({ token, onClose }: { token: { name: string; key: string } | null; onClose: () => void }) {
  const { t } = useTranslation(['tokens', 'common']);
  return (
    <Modal
      opened={token !== null}
      onClose={onClose}
      title={t('created.title')}
      closeOnClickOutside={false}
      closeOnEscape={false}
      size="lg"
    >
      {token && (
        <Stack>
          <Alert color="yellow" variant="light" title={t('created.warningTitle')} data-testid="token-key-warning">
            <Trans t={t} i18nKey="created.warning" values={{ name: token.name }} components={{ b: <b /> }} />
          </Alert>
          <Code block fz="sm" data-testid="token-key" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {token.key}
          </Code>
          <Text size="xs" c="dimmed">
            <Trans t={t} i18nKey="created.howToSend" components={{ code: <Code /> }} />
          </Text>
          <Group justify="space-between">
            <CopyButton value={token.key}>
              {({ copied, copy }) => (
                <Button variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} data-testid="token-key-copy">
                  {copied ? t('common:actions.copied') : t('created.copy')}
                </Button>
              )}
            </CopyButton>
            <Button onClick={onClose} data-testid="token-key-done">
              {t('created.done')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
