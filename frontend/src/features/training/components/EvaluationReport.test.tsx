import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { ClassificationReport } from '../api/modelVersions';
import { EvaluationReport } from './EvaluationReport';

const VERSION = {
  id: 9,
  name: 'V1',
  number: 1,
  workspace: 1,
  project: 4,
  dataset: 3,
  dataset_version: 8,
  job: 42,
  template: 'image_classification',
  preset: 'fast',
  params: { preset: 'fast', model: 'cnn_small', epochs: 2 },
  code_version: '0.1.0+abc',
  classes: ['cat', 'dog', 'fox'],
  preprocessing: {},
  onnx_sha256: 'f00',
  metrics: { test: { accuracy: 0.7 } },
  created_by: 'admin',
  created_at: '2026-11-29T10:00:00Z',
};

const EVALUATION: ClassificationReport = {
  kind: 'classification_report',
  version: 1,
  split: 'test',
  samples: 10,
  classes: ['cat', 'dog', 'fox'],
  accuracy: 0.7,
  top_k_accuracy: { '1': 0.7, '3': 1.0 },
  macro: { precision: 0.71, recall: 0.69, f1: 0.68 },
  weighted: { precision: 0.72, recall: 0.7, f1: 0.69 },
  per_class: [
    { class: 'cat', index: 0, precision: 0.75, recall: 0.75, f1: 0.75, support: 4 },
    { class: 'dog', index: 1, precision: 0.6, recall: 0.75, f1: 0.667, support: 4 },
    { class: 'fox', index: 2, precision: 1, recall: 0.5, f1: 0.667, support: 2 },
  ],
  confusion_matrix: {
    counts: [
      [3, 1, 0],
      [1, 3, 0],
      [0, 1, 1],
    ],
    samples: [
      [[101, 102, 103], [104], []],
      [[201], [202, 203, 204], []],
      [[], [301], [302]],
    ],
  },
  most_confident_mistakes: [
    { sample: 301, index: 8, path: '/x', true: 2, true_class: 'fox', predicted: 1, predicted_class: 'dog', confidence: 0.93 },
    { sample: 104, index: 3, path: '/y', true: 0, true_class: 'cat', predicted: 1, predicted_class: 'dog', confidence: 0.61 },
  ],
  model: { path: '/m.onnx', sha256: 'f00' },
};

function serve() {
  return fakeApi({
    'GET /api/v1/model-versions/9/': json(VERSION),
    'GET /api/v1/model-versions/9/evaluation/': json({ id: 9, name: 'V1', evaluation: EVALUATION }),
    'GET /api/v1/model-versions/': json(page([VERSION])),
    'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V2' }),
  });
}

describe('EvaluationReport', () => {
  it('shows the headline metrics, per-class scores, lineage and the ONNX link', async () => {
    serve();
    renderWithApp(<EvaluationReport modelVersionId={9} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('eval-accuracy')).toHaveTextContent('70.0%');
    expect(screen.getByTestId('eval-top-3')).toHaveTextContent('100.0%');
    expect(screen.getByTestId('eval-macro-f1')).toHaveTextContent('68.0%');
    expect(screen.getByTestId('eval-weighted-precision')).toHaveTextContent('72.0%');
    expect(screen.getByTestId('eval-class-2')).toHaveTextContent('fox');
    expect(screen.getByTestId('eval-class-2')).toHaveTextContent('50.0%');
    expect(screen.getByTestId('model-onnx-download')).toHaveAttribute('href', '/api/v1/model-versions/9/onnx/');
    expect(screen.getByTestId('model-lineage-template')).toHaveTextContent('Image classification · Fast');
    expect(screen.getByTestId('model-lineage-backbone')).toHaveTextContent('none (trained from scratch)');
    await waitFor(() => expect(screen.getByTestId('model-lineage-dataset-version')).toHaveTextContent('V2'));
    const mistake = screen.getByTestId('mistake-301');
    expect(mistake).toHaveTextContent('fox → dog (93%)');
    expect(within(mistake).getByRole('img')).toHaveAttribute('src', '/api/v1/datasets/3/samples/301/thumbnail/');
  });

  it('names the pretrained weights a version started from in its lineage', async () => {
    const sha256 = 'ab12cd34ef56'.padEnd(64, '0');
    fakeApi({
      'GET /api/v1/model-versions/9/': json({ ...VERSION, backbone: { id: 5, name: 'resnet18-imagenet', sha256, tensors: 120 } }),
      'GET /api/v1/model-versions/9/evaluation/': json({ id: 9, name: 'V1', evaluation: EVALUATION }),
      'GET /api/v1/model-versions/': json(page([VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V2' }),
    });
    renderWithApp(<EvaluationReport modelVersionId={9} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    const backbone = await screen.findByTestId('model-lineage-backbone');
    await waitFor(() => expect(backbone).toHaveTextContent('resnet18-imagenet ab12cd34ef56 · 120 tensors loaded'));
    expect(backbone).toHaveAttribute('title', `sha256 ${sha256}`);
  });

  it('names the version a warm-started run started from, linking to it', async () => {
    fakeApi({
      'GET /api/v1/model-versions/9/': json({ ...VERSION, warm_start_from: 4, warm_start_from_name: 'V3' }),
      'GET /api/v1/model-versions/9/evaluation/': json({ id: 9, name: 'V1', evaluation: EVALUATION }),
      'GET /api/v1/model-versions/': json(page([VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V2' }),
    });
    renderWithApp(<EvaluationReport modelVersionId={9} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    const parent = await screen.findByTestId('model-lineage-backbone');
    expect(parent).toHaveTextContent("V3's weights (warm start)");
    expect(parent).toHaveAttribute('href', '/model-versions/4');
  });

  it('opens the test images behind a confusion-matrix cell and hands them to the labeler', async () => {
    serve();
    const onFixLabels = vi.fn();
    renderWithApp(<EvaluationReport modelVersionId={9} onFixLabels={onFixLabels} onCompare={vi.fn()} />);
    const user = userEvent.setup();
    const cell = await screen.findByTestId('cm-cell-1-0');
    expect(cell).toHaveAttribute('data-count', '1');
    expect(screen.getByTestId('cm-cell-0-2')).toHaveAttribute('data-count', '0');

    await user.click(screen.getByTestId('cm-cell-1-1'));
    const panel = await screen.findByTestId('cm-cell-samples');
    expect(panel).toHaveAttribute('data-true', '1');
    expect(panel).toHaveAttribute('data-predicted', '1');
    const thumbnails = within(panel).getAllByRole('img');
    expect(thumbnails.map((image) => image.getAttribute('src'))).toEqual([
      '/api/v1/datasets/3/samples/202/thumbnail/',
      '/api/v1/datasets/3/samples/203/thumbnail/',
      '/api/v1/datasets/3/samples/204/thumbnail/',
    ]);
    expect(screen.getByRole('dialog', { name: '3 images of "dog" predicted as "dog"' })).toBeInTheDocument();

    await user.click(within(panel).getByTestId('cm-fix-labels'));
    expect(onFixLabels).toHaveBeenCalledWith(3, [202, 203, 204]);
  });
});
