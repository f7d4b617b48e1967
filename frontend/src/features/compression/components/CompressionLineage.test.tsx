import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '@/test/render';
import { compressionLineageOf } from '../api/compressions';
import { CompressionLineage } from './CompressionLineage';

describe('CompressionLineage', () => {
  it('says which version it was compressed from, with the recipe and a link to the report', () => {
    const lineage = compressionLineageOf({
      source: 'compressed',
      lineage: { kind: 'compression_lineage', version: 1, parent: 11, teacher: null, recipe: { name: 'pruned-50-int8', prune: { flops_ratio: 0.5 }, quantize: 'static' }, compression: 7 },
    });
    expect(lineage).not.toBeNull();
    renderWithApp(<CompressionLineage lineage={lineage!} parentName="V1" />);
    expect(screen.getByTestId('compression-lineage')).toHaveTextContent('Compressed from V1 with pruned-50-int8 (prune to 50% FLOPs + int8 (static)).');
    expect(screen.getByTestId('compression-lineage-parent')).toHaveAttribute('href', '/model-versions/11');
    expect(screen.getByTestId('compression-lineage-report')).toHaveAttribute('href', '/compressions/7');
  });

  it('is null for versions that were not compressed', () => {
    expect(compressionLineageOf({ source: 'trained', lineage: null })).toBeNull();
    expect(compressionLineageOf({ source: 'custom', lineage: { kind: 'custom_job_lineage' } })).toBeNull();
  });
});
