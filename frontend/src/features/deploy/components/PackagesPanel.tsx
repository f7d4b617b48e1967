import { Alert, Anchor, Badge, Button, Code, Group, Modal, Paper, Progress, Skeleton, Stack, Table, Text, Tooltip } from '@mantine/core';
import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import { formatBytes, isBuilding, jobProgress, PACKAGE_KINDS, packageDownloadUrl, readCompressionReport, type DeployPackage, type PackageKind } from '../api/packages';
import { useDeletePackage, usePackageJob, usePackages } from '../hooks/useDeploy';
import { CompressionReport } from './CompressionReport';

function BuildProgress({ pkg }: { pkg: DeployPackage }) {
  const live = isBuilding(pkg.status);
  const { data: job } = usePackageJob(pkg.job ?? null, live);
  const { percent, message } = jobProgress(job?.progress);
  const value = pkg.status === 'succeeded' ? 100 : (percent ?? 0);
  return (
    <Stack gap={2} miw={160}>
      <Group gap={6} wrap="nowrap">
        <Badge color={statusColor('job', pkg.status)} variant={pkg.status === 'running' ? 'filled' : 'light'} data-testid={`package-status-${pkg.id}`} data-status={pkg.status}>
          {pkg.status}
        </Badge>
        {live && <Progress value={value} striped animated flex={1} data-testid={`package-progress-${pkg.id}`} data-value={value} aria-label={`Build progress ${value}%`} />}
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
          No packages yet. “On-prem server package” and “Device SDK” on a model version build one.
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table verticalSpacing="sm" data-testid="packages-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Package</Table.Th>
            {modelVersionId === undefined && <Table.Th>Model version</Table.Th>}
            <Table.Th>Status</Table.Th>
            <Table.Th>Size</Table.Th>
            <Table.Th>sha256</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.results.map((pkg) => {
            const report = pkg.kind === 'device' ? readCompressionReport(pkg.report) : null;
            const kind = PACKAGE_KINDS[pkg.kind as PackageKind];
            return (
              <Fragment key={pkg.id}>
                <Table.Tr data-testid={`package-row-${pkg.id}`} data-kind={pkg.kind}>
                  <Table.Td>
                    <Text fw={500} size="sm">
                      {kind?.title ?? pkg.kind}
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
                          Job
                        </Button>
                      )}
                      {pkg.status === 'succeeded' ? (
                        <Button component="a" href={packageDownloadUrl(pkg)} download size="xs" data-testid={`package-download-${pkg.id}`}>
                          Download
                        </Button>
                      ) : (
                        <Button size="xs" disabled data-testid={`package-download-${pkg.id}`}>
                          Download
                        </Button>
                      )}
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        disabled={!canEdit || isBuilding(pkg.status)}
                        onClick={() => setDeleting(pkg)}
                        data-testid={`package-delete-${pkg.id}`}
                      >
                        Delete
                      </Button>
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
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title="Delete package">
        <Stack>
          <Text>
            Delete the {deleting ? (PACKAGE_KINDS[deleting.kind as PackageKind]?.title ?? deleting.kind).toLowerCase() : ''} #{deleting?.id}? Its archive is
            removed; you can build it again from the model version.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              Keep it
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              onClick={() => deleting && remove.mutate(deleting.id, { onSettled: () => setDeleting(null) })}
              data-testid="package-delete-confirm"
            >
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
