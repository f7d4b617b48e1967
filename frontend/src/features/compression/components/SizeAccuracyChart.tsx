import '@mantine/charts/styles.css';
import { ScatterChart } from '@mantine/charts';
import { Paper, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatMetric, isFraction } from '../api/format';
import type { CompressionReport } from '../api/types';

const VARIANT_COLORS = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'lime.7', 'pink.6', 'indigo.6'];

/** Size (kB) against the metric: the parent in red, each variant a labelled point of its own colour. */
export function SizeAccuracyChart({ report, parentName }: { report: CompressionReport; parentName: string }) {
  const { t } = useTranslation('compression');
  const metric = report.parent.metric;
  const scale = isFraction(metric) ? 100 : 1;
  const point = (size: number, value: number) => ({ size: Math.round(size / 100) / 10, value: Math.round(value * scale * 1000) / 1000 });
  const data = [
    { name: t('chart.parent', { name: parentName }), color: 'red.6', data: [point(report.parent.size_bytes, report.parent.value)] },
    ...report.variants.map((variant, index) => ({
      name: variant.name,
      color: VARIANT_COLORS[index % VARIANT_COLORS.length],
      data: [point(variant.summary.size_bytes, variant.summary.value)],
    })),
  ];
  return (
    <Paper withBorder p="md" data-testid="compression-chart" data-points={data.length}>
      <Title order={5}>{t('chart.title')}</Title>
      <Text size="xs" c="dimmed" mb="sm">
        {t('chart.description', { metric })}
      </Text>
      <ScatterChart
        h={280}
        data={data}
        dataKey={{ x: 'size', y: 'value' }}
        labels={{ x: t('chart.size'), y: metric }}
        unit={{ x: ' kB', y: scale === 100 ? '%' : '' }}
        withLegend
        legendProps={{ verticalAlign: 'bottom' }}
        xAxisLabel={t('chart.size')}
        yAxisLabel={metric}
        valueFormatter={{ y: (value) => (scale === 100 ? `${value}` : formatMetric(metric, value)) }}
      />
    </Paper>
  );
}
