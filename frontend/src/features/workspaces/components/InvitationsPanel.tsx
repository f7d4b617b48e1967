import { Alert, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';
import { formatRelative } from '@/lib/datetime';
import { notifySuccess } from '@/lib/notifications';
import type { Invitation } from '../api/invitations';
import { useAnswerInvitation, useMyInvitations } from '../hooks/useInvitations';

function InvitationRow({ invitation, answer }: { invitation: Invitation; answer: ReturnType<typeof useAnswerInvitation> }) {
  const { t } = useTranslation('workspaces');
  const { accept, decline } = answer;
  const role = translateDynamic(`workspaces:roles.${invitation.role}`, invitation.role);
  const values = { inviter: invitation.invited_by?.username, workspace: invitation.workspace.name, role };
  return (
    <Group justify="space-between" wrap="wrap" p="sm" data-testid={`my-invitation-${invitation.id}`}>
      <Stack gap={0}>
        <Text size="sm">
          <Trans
            t={t}
            i18nKey={invitation.invited_by ? 'invitations.row' : 'invitations.rowNoInviter'}
            values={values}
            components={{ b: <b /> }}
          />
        </Text>
        <Text size="xs" c="dimmed">
          {formatRelative(invitation.created_at)}
        </Text>
      </Stack>
      <Group gap="xs">
        <Button
          size="xs"
          variant="default"
          loading={decline.isPending && decline.variables === invitation.id}
          onClick={() =>
            decline.mutate(invitation.id, {
              onSuccess: () => notifySuccess(t('invitations.declined', { workspace: invitation.workspace.name })),
            })
          }
          data-testid={`invitation-decline-${invitation.id}`}
        >
          {t('invitations.decline')}
        </Button>
        <Button
          size="xs"
          loading={accept.isPending && accept.variables === invitation.id}
          onClick={() =>
            accept.mutate(invitation.id, {
              onSuccess: () => notifySuccess(t('invitations.accepted', { workspace: invitation.workspace.name, role })),
            })
          }
          data-testid={`invitation-accept-${invitation.id}`}
        >
          {t('invitations.accept')}
        </Button>
      </Group>
    </Group>
  );
}

/** The invitations addressed to the signed-in user, with their count; nothing when there are none. */
export function InvitationsPanel() {
  const { t } = useTranslation('workspaces');
  const { data } = useMyInvitations();
  // The answers live here, not in the rows: a row goes once answered, and with it its callbacks.
  const answer = useAnswerInvitation();
  if (!data || data.results.length === 0) return null;
  return (
    <Alert variant="light" color="blue" mb="md" data-testid="my-invitations">
      <Stack gap="xs">
        <Title order={5}>{t('invitations.title')}</Title>
        <Text size="sm" data-testid="my-invitations-count">
          {t('invitations.count', { count: data.count })}
        </Text>
        <Paper withBorder>
          {data.results.map((invitation) => (
            <InvitationRow key={invitation.id} invitation={invitation} answer={answer} />
          ))}
        </Paper>
      </Stack>
    </Alert>
  );
}
