import { describe, expect, it } from 'vitest';
import { hyperRowProblems, parseHyperValue, runBody, splitArgs, type RunFormValues } from './runForm';

const EMPTY: RunFormValues = {
  entryPoint: '',
  args: '',
  hyperparameters: [],
  requirements: '',
  datasetVersion: null,
  queue: 'cpu',
  wallTimeS: null,
  memoryMb: null,
  cpus: null,
  network: false,
  name: '',
};

describe('run form values', () => {
  it('keeps a typed value its type: int, float, bool, else text', () => {
    expect(parseHyperValue('2')).toBe(2);
    expect(parseHyperValue('-3')).toBe(-3);
    expect(parseHyperValue('0.1')).toBe(0.1);
    expect(parseHyperValue('1e-3')).toBe(0.001);
    expect(parseHyperValue('true')).toBe(true);
    expect(parseHyperValue('false')).toBe(false);
    expect(parseHyperValue('adam')).toBe('adam');
    expect(parseHyperValue('1.2.3')).toBe('1.2.3');
  });

  it('splits arguments on spaces and keeps quoted parts whole', () => {
    expect(splitArgs('--batch-size 32  --tag "two words"')).toEqual(['--batch-size', '32', '--tag', 'two words']);
    expect(splitArgs("--empty ''")).toEqual(['--empty', '']);
    expect(splitArgs('   ')).toEqual([]);
  });

  it('names the rows with a bad or repeated name and ignores empty rows', () => {
    expect(
      hyperRowProblems([
        { name: 'epochs', value: '2' },
        { name: '2lr', value: '0.1' },
        { name: 'epochs', value: '3' },
        { name: '', value: '' },
        { name: 'with-dash', value: '1' },
      ]),
    ).toEqual({ 1: 'name', 2: 'duplicate', 4: 'name' });
  });

  it('builds the request body, leaving empty fields to the platform', () => {
    expect(runBody(3, 9, EMPTY)).toEqual({ project: 3, code_archive: 9, queue: 'cpu', network: false, requirements: '', dataset_version: null });
    expect(
      runBody(3, 9, {
        ...EMPTY,
        entryPoint: ' train.py ',
        args: '--seed 1',
        hyperparameters: [
          { name: 'epochs', value: '2' },
          { name: 'lr', value: '0.01' },
          { name: '', value: '' },
        ],
        requirements: 'scikit-learn\n',
        datasetVersion: 12,
        queue: 'gpu',
        wallTimeS: 600,
        cpus: 1,
        network: true,
        name: 'digits cnn',
      }),
    ).toEqual({
      project: 3,
      code_archive: 9,
      entry_point: 'train.py',
      args: ['--seed', '1'],
      hyperparameters: { epochs: 2, lr: 0.01 },
      requirements: 'scikit-learn\n',
      dataset_version: 12,
      queue: 'gpu',
      limits: { wall_time_s: 600, cpus: 1 },
      network: true,
      name: 'digits cnn',
    });
  });
});
