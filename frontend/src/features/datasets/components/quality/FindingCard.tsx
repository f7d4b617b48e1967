import { Badge, Button, Group, Image, Paper, ScrollArea, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { translateDynamic } from '@/i18n';
import { formatNumber, formatPercent } from '@/lib/numbers';
import type { Finding } from '../../api/quality';
import { SAMPLES_PAGE_SIZE, type Sample } from '../../api/samples';
import { useSamplePage } from '../../hooks/useSamples';
import { labelerLink, thumbnailUrl } from './labelerLink';

const SEVERITY_COLORS = { error: 'red', warning: 'orange', info: 'blue' } as const;
/** How many rows or groups a card shows before "and N more" (the labeler link still takes them all). */
const SHOWN_ITEMS = 24;
const SHOWN_GROUPS = 12;
const THUMB = 56;

function severityColor(severity: string): string {
  return SEVERITY_COLORS[severity as keyof typeof SEVERITY_COLORS] ?? 'gray';
}

const SNIPPET = 60;

/** A text or row sample as a chip: the start of its text (all of it on hover), else its name. */
function describe(sample: Sample | undefined): string | null {
  if (!sample) return null;
  const text = sample.text?.trim();
  if (text) return text.length > SNIPPET ? `${text.slice(0, SNIPPET)}…` : text;
  return sample.original_name || null;
}

/** A sample in a finding: its thumbnail for images, the start of its text (or its name) otherwise. */
function SampleChip({ datasetId, sampleId, images, sample }: { datasetId: number; sampleId: number; images: boolean; sample?: Sample }) {
  if (sampleId <= 0) {
    return <Badge variant="outline" color="gray">{`#${-sampleId}`}</Badge>;
  }
  if (!images) {
    const described = describe(sample);
    return (
      <Tooltip label={sample?.text || sample?.original_name || `#${sampleId}`} multiline maw={420} disabled={!described}>
        <Badge variant="light" color="gray" tt="none" maw={360} data-testid="finding-sample">
          {described ? `#${sampleId} · ${described}` : `#${sampleId}`}
        </Badge>
      </Tooltip>
    );
  }
  return (
    <Tooltip label={`#${sampleId}`}>
      <Image src={thumbnailUrl(datasetId, sampleId)} w={THUMB} h={THUMB} fit="contain" radius="sm" alt={`#${sampleId}`} loading="lazy" data-testid="finding-thumbnail" />
    </Tooltip>
  );
}

/**
 * One finding of a quality report: what it is and what it means (translated by code), how many
 * samples it concerns, "Open in labeler" on them; likely mislabels list the current and the
 * suggested label, duplicate findings show their groups.
 */
export function FindingCard({ finding, datasetId, taskType, classes }: { finding: Finding; datasetId: number; taskType: string; classes: string[] }) {
  const { t } = useTranslation('datasets');
  const images = taskType === 'image_classification' || taskType === 'object_detection';
  const link = labelerLink(datasetId, taskType, finding.sample_ids);
  const className = (index: number | null | undefined) => (index === null || index === undefined ? t('quality.unlabeled') : (classes[index] ?? `#${index}`));
  const details = Object.fromEntries(Object.entries(finding.details).map(([key, value]) => [key, typeof value === 'number' ? formatNumber(value, { maximumFractionDigits: 2 }) : value]));
  const options = { count: finding.count, column: finding.column, ...details };
  const mislabels = finding.code === 'likely_mislabeled';
  // Texts and rows have no thumbnail: read the shown samples (one page) to show their text.
  const shownIds = (
    mislabels || finding.groups.length === 0 ? finding.items.slice(0, SHOWN_ITEMS).map((item) => item.sample) : finding.groups.slice(0, SHOWN_GROUPS).flat()
  )
    .filter((id) => id > 0)
    .slice(0, SAMPLES_PAGE_SIZE);
  const samples = useSamplePage(datasetId, { label: null, search: '', page: 1, ids: shownIds }, !images && shownIds.length > 0);
  const sampleOf = new Map((samples.data?.results ?? []).map((sample) => [sample.id, sample]));
  return (
    <Paper withBorder p="md" data-testid={`finding-${finding.code}`} data-severity={finding.severity} data-count={finding.count}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Group gap="xs">
            <Badge color={severityColor(finding.severity)} variant="filled">
              {t(`quality.severity.${finding.severity}` as 'quality.severity.error')}
            </Badge>
            <Text fw={600}>{translateDynamic(`datasets:quality.codes.${finding.code}.title`, finding.code, options)}</Text>
            {finding.column && (
              <Badge variant="outline" color="gray">
                {finding.column}
              </Badge>
            )}
            <Badge variant="light" color="gray" data-testid="finding-count">
              {t('quality.samplesCount', { count: finding.count, formatted: formatNumber(finding.count) })}
            </Badge>
          </Group>
          {link && (
            <Button component={Link} to={link} size="xs" variant="light" data-testid="open-in-labeler">
              {t('quality.openInLabeler')}
            </Button>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          {translateDynamic(`datasets:quality.codes.${finding.code}.explain`, '', options)}
        </Text>
        {mislabels && finding.items.length > 0 && (
          <ScrollArea.Autosize mah={360}>
            <Table fz="sm" verticalSpacing={4} data-testid="mislabel-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('quality.sample')}</Table.Th>
                  <Table.Th>{t('quality.currentLabel')}</Table.Th>
                  <Table.Th>{t('quality.suggestedLabel')}</Table.Th>
                  <Table.Th>{t('quality.confidence')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {finding.items.slice(0, SHOWN_ITEMS).map((item) => (
                  <Table.Tr key={item.sample} data-testid="mislabel-row">
                    <Table.Td>
                      <SampleChip datasetId={datasetId} sampleId={item.sample} images={images} sample={sampleOf.get(item.sample)} />
                    </Table.Td>
                    <Table.Td data-testid="mislabel-current">{className(item.label)}</Table.Td>
                    <Table.Td data-testid="mislabel-suggested">
                      <Text span fw={600} c="teal">
                        {className(item.suggested_label)}
                      </Text>
                    </Table.Td>
                    <Table.Td>{item.confidence === undefined ? '—' : formatPercent(item.confidence)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
        )}
        {finding.groups.length > 0 && (
          <Stack gap={6} data-testid="duplicate-groups">
            {finding.groups.slice(0, SHOWN_GROUPS).map((group, index) => (
              <Group key={index} gap={6} data-testid="duplicate-group" data-size={group.length}>
                <Text size="xs" c="dimmed" w={64}>
                  {t('quality.group', { number: index + 1 })}
                </Text>
                {group.map((sampleId) => (
                  <SampleChip key={sampleId} datasetId={datasetId} sampleId={sampleId} images={images} sample={sampleOf.get(sampleId)} />
                ))}
              </Group>
            ))}
          </Stack>
        )}
        {!mislabels && finding.groups.length === 0 && finding.items.length > 0 && (
          <Group gap={6} data-testid="finding-items">
            {finding.items.slice(0, SHOWN_ITEMS).map((item) => (
              <Stack key={item.sample} gap={0} align="center">
                <SampleChip datasetId={datasetId} sampleId={item.sample} images={images} sample={sampleOf.get(item.sample)} />
                {item.value !== undefined && (
                  <Text size="xs" c="dimmed">
                    {formatNumber(item.value, { maximumFractionDigits: 2 })}
                  </Text>
                )}
                {item.language && (
                  <Text size="xs" c="dimmed">
                    {item.language}
                  </Text>
                )}
              </Stack>
            ))}
          </Group>
        )}
        {(mislabels || finding.groups.length === 0 ? finding.items.length > SHOWN_ITEMS : finding.groups.length > SHOWN_GROUPS) && (
          <Text size="xs" c="dimmed">
            {t('quality.andMore', {
              count: mislabels || finding.groups.length === 0 ? finding.items.length - SHOWN_ITEMS : finding.groups.length - SHOWN_GROUPS,
            })}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
