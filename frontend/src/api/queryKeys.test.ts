import { partialMatchKey, QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { datasetKeys, modelVersionKeys, templateKeys } from './queryKeys';

describe('shared query keys', () => {
  it('nest every model version key under the resource key', () => {
    for (const key of [modelVersionKeys.list(4), modelVersionKeys.detail(7), modelVersionKeys.evaluation(7), modelVersionKeys.comparison(1, 2)])
      expect(partialMatchKey(key, modelVersionKeys.all)).toBe(true);
    expect(partialMatchKey(modelVersionKeys.evaluation(7), modelVersionKeys.detail(7))).toBe(true);
    expect(partialMatchKey(modelVersionKeys.evaluation(7), modelVersionKeys.detail(8))).toBe(false);
  });

  it("put a dataset version under its dataset's versions and detail", () => {
    expect(partialMatchKey(datasetKeys.version(3, 9), datasetKeys.versions(3))).toBe(true);
    expect(partialMatchKey(datasetKeys.versions(3), datasetKeys.detail(3))).toBe(true);
    expect(partialMatchKey(datasetKeys.version(3, 9), datasetKeys.versions(4))).toBe(false);
    expect(partialMatchKey(datasetKeys.list(3), datasetKeys.detail(3))).toBe(false);
  });

  it('give equal keys for equal arguments, so two features share one cache entry', async () => {
    const client = new QueryClient();
    client.setQueryData(modelVersionKeys.list(4), { count: 1 });
    expect(client.getQueryData(modelVersionKeys.list(4))).toEqual({ count: 1 });
    expect(client.getQueryData(modelVersionKeys.list(5))).toBeUndefined();
    client.setQueryData(modelVersionKeys.detail(7), { id: 7 });
    client.setQueryData(templateKeys.all, []);
    await client.invalidateQueries({ queryKey: modelVersionKeys.all });
    expect(client.getQueryState(modelVersionKeys.list(4))?.isInvalidated).toBe(true);
    expect(client.getQueryState(modelVersionKeys.detail(7))?.isInvalidated).toBe(true);
    expect(client.getQueryState(templateKeys.all)?.isInvalidated).toBe(false);
  });
});
