import '@mantine/charts/styles.css';
import { Alert, Anchor, Badge, Button, Group, NumberInput, Paper, Progress, Select, SimpleGrid, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Stat } from '@/components/Stat';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { progressColor, statusColor } from '@/lib/statusColors';
import { isQualityReportActive, type QualityReport, type QualityReportRun, type QualityReportSummary } from '../../api/quality';
import { useDataset } from '../../hooks/useDatasets';
import { useCreateQualityReport, useQualityReport, useQualityReports } from '../../hooks/useQuality';
import { useVersions } from '../../hooks/useVersions';
import { CategoryBars, ChartCard, ColumnBars } from '../ChartCard';
import { FindingCard } from './FindingCard';
import { bucketName } from './labelerLink';

const SEVERITIES = ['error', 'warning', 'info'] as const;
const LIVE = 'live';
/** An imbalance ratio from which training needs care (the advice turns to a warning). */
const IMBALANCED = 10;

function reportTitle(row: QualityReportSummary, t: TFunction<'datasets'>): string {
  const of = row.version_name ?? t('quality.liveDataset');
  return t('quality.reportOption', { id: row.id, of, date: formatDateTime(row.created_at) });
}

type Thresholds = { near_duplicate_distance?: number; near_duplicate_similarity?: number; min_per_class?: number };

/** The thresholds a user may change (empty: the checks' defaults, shown as placeholders). */
function ThresholdInputs({ texts, value, onChange }: { texts: boolean; value: Thresholds; onChange: (value: Thresholds) => void }) {
  const { t } = useTranslation('datasets');
  const set = (key: keyof Thresholds) => (input: number | string) => onChange({ ...value, [key]: typeof input === 'number' ? input : undefined });
  return (
    <Group align="flex-end" data-testid="quality-thresholds">
      {texts ? (
        <NumberInput
          label={t('quality.similarity')}
          description={t('quality.similarityHelp')}
          placeholder="0.95"
          min={0.5}
          max={1}
          step={0.01}
          decimalScale={2}
          value={value.near_duplicate_similarity ?? ''}
          onChange={set('near_duplicate_similarity')}
          w={240}
          data-testid="quality-similarity"
        />
      ) : (
        <NumberInput
          label={t('quality.distance')}
          description={t('quality.distanceHelp')}
          placeholder="6"
          min={0}
          max={32}
          allowDecimal={false}
          value={value.near_duplicate_distance ?? ''}
          onChange={set('near_duplicate_distance')}
          w={240}
          data-testid="quality-distance"
        />
      )}
      <NumberInput
        label={t('quality.minPerClass')}
        description={t('quality.minPerClassHelp')}
        placeholder="10"
        min={1}
        max={100000}
        allowDecimal={false}
        value={value.min_per_class ?? ''}
        onChange={set('min_per_class')}
        w={240}
        data-testid="quality-min-per-class"
      />
    </Group>
  );
}

/** "Run a quality report" of the dataset or one of its versions. */
function RunForm({ datasetId, canEdit, onStarted, texts }: { datasetId: number; canEdit: boolean; onStarted: (id: number) => void; texts: boolean }) {
  const { t } = useTranslation(['datasets', 'common']);
  const versions = useVersions(datasetId);
  const create = useCreateQualityReport(datasetId);
  const [target, setTarget] = useState<string>(LIVE);
  const [thresholds, setThresholds] = useState<Thresholds>({});
  const [showThresholds, setShowThresholds] = useState(false);
  const options = [
    { value: LIVE, label: t('quality.liveDataset') },
    ...(versions.data ?? []).map((version) => ({ value: String(version.id), label: t('quality.versionOption', { name: version.name, count: version.sample_count }) })),
  ];
  const params = Object.fromEntries(Object.entries(thresholds).filter(([, given]) => given !== undefined));
  const run = () => create.mutate({ version: target === LIVE ? null : Number(target), params }, { onSuccess: (report) => onStarted(report.id) });
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={4}>{t('quality.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('quality.intro')}
        </Text>
        <Group align="flex-end">
          <Select
            label={t('quality.check')}
            data={options}
            value={target}
            onChange={(value) => setTarget(value ?? LIVE)}
            allowDeselect={false}
            w={280}
            data-testid="quality-target"
          />
          <WithReason reason={canEdit ? null : t('common:permissions.viewerReadOnly')}>
            <Button onClick={run} loading={create.isPending} disabled={!canEdit} data-testid="run-quality-report">
              {t('quality.run')}
            </Button>
          </WithReason>
          <Button variant="subtle" onClick={() => setShowThresholds((shown) => !shown)} data-testid="quality-thresholds-toggle">
            {showThresholds ? t('quality.hideThresholds') : t('quality.showThresholds')}
          </Button>
        </Group>
        {showThresholds && <ThresholdInputs texts={texts} value={thresholds} onChange={setThresholds} />}
      </Stack>
    </Paper>
  );
}

function Progressing({ run }: { run: QualityReportRun }) {
  const { t } = useTranslation('datasets');
  const fraction = run.progress.fraction ?? 0;
  const percent = Math.round(fraction * 1000) / 10;
  return (
    <Paper withBorder p="md" data-testid="quality-progress">
      <Stack gap={6}>
        <Text size="sm">{run.progress.message ?? t(`quality.status.${run.status}` as 'quality.status.queued')}</Text>
        <Group gap="xs" wrap="nowrap">
          <Progress value={percent} striped animated color={progressColor(run.status)} flex={1} aria-label={t('quality.progressAria', { percent })} data-value={percent} />
          <Text size="xs" c="dimmed" w={48} ta="right">
            {percent}%
          </Text>
        </Group>
      </Stack>
    </Paper>
  );
}

/** Class balance: samples (boxes for detection) per class, the imbalance ratio and what it means for training. */
function ClassBalance({ report }: { report: QualityReport }) {
  const { t } = useTranslation('datasets');
  const balance = report.class_balance;
  const ratio = balance.imbalance_ratio;
  const rows = balance.classes.map((row) => ({ name: row.name, count: row.count }));
  const tiny = balance.tiny_classes.map((index) => report.classes[index] ?? `#${index}`);
  const imbalanced = ratio !== null && ratio >= IMBALANCED;
  return (
    <Stack gap="xs">
      <ChartCard
        title={t(report.task_type === 'object_detection' ? 'quality.boxesPerClass' : 'quality.samplesPerClass')}
        testId="quality-class-balance"
        points={rows.length}
        empty={rows.length === 0}
        emptyText={t('quality.noClasses')}
        badge={
          ratio !== null && (
            <Badge color={imbalanced ? 'orange' : 'teal'} variant="light" data-testid="imbalance-ratio">
              {t('quality.imbalanceRatio', { ratio: formatNumber(ratio, { maximumFractionDigits: 1 }) })}
            </Badge>
          )
        }
      >
        <CategoryBars rows={rows} series={t('quality.samplesSeries')} color="blue.6" />
      </ChartCard>
      {rows.length > 0 && (
        <Alert color={imbalanced || tiny.length ? 'orange' : 'teal'} variant="light" data-testid="balance-advice">
          {imbalanced ? t('quality.adviceImbalanced', { ratio: formatNumber(ratio, { maximumFractionDigits: 1 }) }) : t('quality.adviceBalanced')}
          {tiny.length > 0 && ` ${t('quality.adviceTiny', { names: tiny.join(t('quality.listSeparator')), min: balance.min_per_class })}`}
        </Alert>
      )}
    </Stack>
  );
}

function ReportView({ run, datasetId }: { run: QualityReportRun; datasetId: number }) {
  const { t } = useTranslation('datasets');
  if (isQualityReportActive(run)) return <Progressing run={run} />;
  if (run.status === 'failed' || !run.report) {
    return (
      <Alert color="red" title={t('quality.failed')} data-testid="quality-error">
        {run.error || t('quality.failedNoMessage')}
      </Alert>
    );
  }
  const report = run.report;
  const bySeverity = (severity: string) => report.findings.filter((finding) => finding.severity === severity);
  const concerned = new Set(report.findings.filter((finding) => finding.severity !== 'info').flatMap((finding) => finding.sample_ids)).size;
  return (
    <Stack data-testid="quality-report" data-report={run.id}>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Stat label={t('quality.samples')} value={formatNumber(report.samples)} testId="quality-samples" />
        <Stat label={t('quality.labeled')} value={formatNumber(report.labeled)} testId="quality-labeled" />
        <Stat label={t('quality.findings')} value={formatNumber(report.findings.length)} testId="quality-findings" />
        <Stat label={t('quality.concerned')} value={formatNumber(concerned)} testId="quality-concerned" hint={t('quality.concernedHint')} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ClassBalance report={report} />
        {report.distributions.map((distribution) => (
          <ChartCard
            key={distribution.name}
            title={translateDynamic(`datasets:quality.distributions.${distribution.name}`, distribution.name)}
            testId={`distribution-${distribution.name}`}
            points={distribution.counts.length}
            empty={distribution.counts.every((count) => count === 0)}
            emptyText={t('quality.noValues')}
          >
            <ColumnBars rows={distribution.counts.map((count, index) => ({ bucket: bucketName(distribution.edges, index), count }))} series={t('quality.samplesSeries')} color="teal.6" />
          </ChartCard>
        ))}
      </SimpleGrid>
      {report.findings.length === 0 && (
        <Alert color="teal" data-testid="no-findings">
          {t('quality.noFindings')}
        </Alert>
      )}
      {SEVERITIES.map((severity) => {
        const findings = bySeverity(severity);
        if (findings.length === 0) return null;
        return (
          <Stack key={severity} gap="xs" data-testid={`findings-${severity}`}>
            <Title order={5}>{t(`quality.severityTitle.${severity}`, { count: findings.length })}</Title>
            {findings.map((finding, index) => (
              <FindingCard key={`${finding.code}-${finding.column}-${index}`} finding={finding} datasetId={datasetId} taskType={report.task_type} classes={report.classes} />
            ))}
          </Stack>
        );
      })}
      {report.skipped.length > 0 && (
        // the compute plane's reasons are English sentences: on hover, the translated check names stay in view
        <Tooltip label={report.skipped.map((item) => item.reason).join(' · ')} multiline maw={480}>
          <Text size="xs" c="dimmed" data-testid="skipped-checks">
            {t('quality.skipped', {
              checks: report.skipped.map((item) => translateDynamic(`datasets:quality.codes.${item.code}.title`, item.code)).join(t('quality.listSeparator')),
            })}
          </Text>
        </Tooltip>
      )}
    </Stack>
  );
}

/** The dataset page's Quality tab: run a report (of the dataset or a version), follow its job, read its findings. */
export function QualityPanel({ datasetId, canEdit }: { datasetId: number; canEdit: boolean }) {
  const { t } = useTranslation('datasets');
  const { data: dataset } = useDataset(datasetId);
  const reports = useQualityReports(datasetId);
  const [picked, setPicked] = useState<number | null>(null);
  const shown = picked ?? reports.data?.[0]?.id ?? null;
  const run = useQualityReport(datasetId, shown);
  return (
    <Stack data-testid="quality-panel">
      <RunForm datasetId={datasetId} canEdit={canEdit} onStarted={setPicked} texts={dataset?.task_type === 'text_classification'} />
      {reports.isPending && <Skeleton h={120} />}
      {reports.isError && <Alert color="red">{errorMessage(reports.error)}</Alert>}
      {reports.data && reports.data.length === 0 && (
        <Text c="dimmed" size="sm" data-testid="no-quality-reports">
          {t('quality.none')}
        </Text>
      )}
      {reports.data && reports.data.length > 0 && (
        <Group>
          <Select
            label={t('quality.report')}
            data={reports.data.map((row) => ({ value: String(row.id), label: reportTitle(row, t) }))}
            value={shown === null ? null : String(shown)}
            onChange={(value) => setPicked(value ? Number(value) : null)}
            allowDeselect={false}
            w={440}
            data-testid="quality-report-picker"
          />
          {run.data && (
            <Badge color={statusColor('job', run.data.status)} mt={24} data-testid="quality-status">
              {t(`quality.status.${run.data.status}` as 'quality.status.queued')}
            </Badge>
          )}
          {run.data?.job != null && (
            <Anchor component={Link} to={`/jobs/${run.data.job}`} size="sm" mt={24} data-testid="quality-job-link">
              {t('quality.job', { id: run.data.job })}
            </Anchor>
          )}
        </Group>
      )}
      {shown !== null && run.isPending && <Skeleton h={240} />}
      {run.data && dataset && <ReportView run={run.data} datasetId={datasetId} />}
    </Stack>
  );
}
