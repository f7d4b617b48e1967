import { Alert, Anchor, Badge, Button, Code, Group, Modal, Paper, Progress, Skeleton, Stack, Table, Text, Tooltip } from '@mantine/core';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import { formatBytes, isBuilding, jobProgress, packageDownloadUrl, readCompressionReport, type DeployPackage } from '../api/packages';
import { useDeletePackage, usePackageJob, usePackages } from '../hooks/useDeploy';
import { CompressionReport } from './CompressionReport';

/** A package kind's name ("On-prem server package", "Device SDK") in the UI's language. */
function kindTitle(kind: string): string {
  return translateDynamic(`deploy:packages.kinds.${kind}.title`, kind);
}

function BuildProgress({ pkg }: { pkg: DeployPackage }) {
  const { t } = useTranslation(['deploy', 'common']);
  const live = isBuilding(pkg.status);
  const { data: job } = usePackageJob(pkg.job ?? null, live);
  const { percent, message } = jobProgress(job?.progress);
  const value = pkg.status === 'succeeded' ? 100 : (percent ?? 0);
  return (
    <Stack gap={2} miw={160}>
      <Group gap={6} wrap="nowrap">
        <Badge color={statusColor('job', pkg.status)} variant={pkg.status === 'running' ? 'filled' : 'light'} data-testid={`package-status-${pkg.id}`} data-status={pkg.status}>
          {translateDynamic(`jobs:status.${pkg.status}`, pkg.status)}
        </Badge>
        {live && <Progress value={value} striped animated flex={1} data-testid={`package-progress-${pkg.id}`} data-value={value} aria-label={t('packages.progress', { value })} />}
      </Group>
      {live && message && (
        <Text size="xs" c="dimmed" data-testid={`package-progress-message-${pkg.id}`}>
          {message}
        </Text>
      )}
    </Stack>
  );
}

/** Built (and building) server packages and device SDKs; each archive can be downloaded again later. */
export function PackagesPanel({
  modelVersionId,
  projectId,
  hideWhenEmpty = false,
  canEdit = true,
}: {
  modelVersionId?: number;
  projectId?: number;
  hideWhenEmpty?: boolean;
  canEdit?: boolean;
}) {
  const { t } = useTranslation(['deploy', 'common']);
  const filters = modelVersionId !== undefined ? { model_version: modelVersionId } : { project: projectId };
  const { data, isPending, isError, error } = usePackages(filters);
  const remove = useDeletePackage();
  const [deleting, setDeleting] = useState<DeployPackage | null>(null);
  if (isPending) return <Skeleton h={80} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    if (hideWhenEmpty) return null;
    return (
      <Paper withBorder p="lg" ta="center" data-testid="packages-empty">
        <Text c="dimmed" size="sm">
          {t('packages.empty')}
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table verticalSpacing="sm" data-testid="packages-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('packages.package')}</Table.Th>
            {modelVersionId === undefined && <Table.Th>{t('packages.modelVersion')}</Table.Th>}
            <Table.Th>{t('packages.status')}</Table.Th>
            <Table.Th>{t('packages.size')}</Table.Th>
            {/* i18n-ignore: the hash's name */}
            <Table.Th>sha256</Table.Th>
            <Table.Th>{t('packages.created')}</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.results.map((pkg) => {
            const report = pkg.kind === 'device' ? readCompressionReport(pkg.report) : null;
            return (
              <Fragment key={pkg.id}>
                <Table.Tr data-testid={`package-row-${pkg.id}`} data-kind={pkg.kind}>
                  <Table.Td>
                    <Text fw={500} size="sm">
                      {kindTitle(pkg.kind)}
                    </Text>
                    <Text size="xs" c="dimmed">
                      #{pkg.id}
                    </Text>
                  </Table.Td>
                  {modelVersionId === undefined && (
                    <Table.Td>
                      <Anchor component={Link} to={`/model-versions/${pkg.model_version}`} size="sm">
                        {pkg.model_version_name}
                      </Anchor>
                    </Table.Td>
                  )}
                  <Table.Td>
                    <BuildProgress pkg={pkg} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" data-testid={`package-size-${pkg.id}`}>
                      {formatBytes(pkg.size_bytes)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {pkg.sha256 ? (
                      <Tooltip label={pkg.sha256}>
                        <Code fz="xs">{pkg.sha256.slice(0, 12)}</Code>
                      </Tooltip>
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatDateTime(pkg.created_at)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap" justify="flex-end">
                      {pkg.job !== null && pkg.job !== undefined && (
                        <Button component={Link} to={`/jobs/${pkg.job}`} size="xs" variant="subtle">
                          {t('packages.job')}
                        </Button>
                      )}
                      {pkg.status === 'succeeded' ? (
                        <Button component="a" href={packageDownloadUrl(pkg)} download size="xs" data-testid={`package-download-${pkg.id}`}>
                          {t('packages.download')}
                        </Button>
                      ) : (
                        <WithReason reason={pkg.status === 'failed' ? t('packages.failedNoDownload') : t('packages.notBuilt')}>
                          <Button size="xs" disabled data-testid={`package-download-${pkg.id}`}>
                            {t('packages.download')}
                          </Button>
                        </WithReason>
                      )}
                      <WithReason reason={!canEdit ? t('common:permissions.viewerReadOnly') : isBuilding(pkg.status) && t('packages.building')}>
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          disabled={!canEdit || isBuilding(pkg.status)}
                          onClick={() => setDeleting(pkg)}
                          data-testid={`package-delete-${pkg.id}`}
                        >
                          {t('common:actions.delete')}
                        </Button>
                      </WithReason>
                    </Group>
                  </Table.Td>
                </Table.Tr>
                {(report || (pkg.status === 'failed' && pkg.error)) && (
                  <Table.Tr>
                    <Table.Td colSpan={modelVersionId === undefined ? 7 : 6}>
                      {pkg.status === 'failed' && pkg.error && (
                        <Alert color="red" variant="light" data-testid={`package-error-${pkg.id}`}>
                          {pkg.error}
                        </Alert>
                      )}
                      {report && <CompressionReport packageId={pkg.id} report={report} />}
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('packages.deleteTitle')}>
        <Stack>
          <Text>
            {deleting ? t('packages.deleteConfirm', { kind: kindTitle(deleting.kind), id: deleting.id }) : ''}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              {t('packages.keep')}
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              onClick={() => deleting && remove.mutate(deleting.id, { onSettled: () => setDeleting(null) })}
              data-testid="package-delete-confirm"
            >
              {t('common:actions.delete')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
