/** A sample as the list API answers it, for tests: an unlabeled 32×32 PNG unless `overrides` say otherwise. */
export function sampleFixture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    original_name: `img_${id}.png`,
    label: null as number | null,
    label_name: null as string | null,
    label_version: 0,
    width: 32,
    height: 32,
    format: 'PNG',
    size_bytes: 100,
    sha256: `sha${id}`,
    split: null,
    image_url: `/api/v1/datasets/1/samples/${id}/image/`,
    thumbnail_url: `/api/v1/datasets/1/samples/${id}/thumbnail/`,
    import_batch: 1,
    created_at: '2026-12-01T10:00:00Z',
    ...overrides,
  };
}
