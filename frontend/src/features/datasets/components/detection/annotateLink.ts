import { MAX_PICKED_SAMPLES, type SampleFilters } from '../../api/samples';

const STATUSES = ['unlabeled', 'annotated', 'no_objects'] as const;

/** The grid's filter for the labeler's previous/next, from the labeler's URL (`?status=&box_label=&page=`, or `?ids=` for picked images). */
export function filtersFromSearch(search: URLSearchParams): SampleFilters {
  const status = STATUSES.find((value) => value === search.get('status'));
  const boxLabel = Number(search.get('box_label'));
  const page = Number(search.get('page'));
  const ids = (search.get('ids') ?? '')
    .split(',')
    .map(Number)
    .filter((id) => Number.isInteger(id) && id > 0)
    .slice(0, MAX_PICKED_SAMPLES);
  return {
    label: null,
    search: '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
    ...(status ? { status } : {}),
    ...(Number.isInteger(boxLabel) && boxLabel > 0 ? { boxLabel } : {}),
    ...(ids.length ? { ids } : {}),
  };
}

/** The query string that carries `filters` to the labeler ('' for all images, first page). */
export function annotateSearch(filters: SampleFilters): string {
  const search = new URLSearchParams();
  if (filters.status) search.set('status', filters.status);
  if (filters.boxLabel !== undefined) search.set('box_label', String(filters.boxLabel));
  if (filters.ids?.length) search.set('ids', filters.ids.join(','));
  if (filters.page > 1) search.set('page', String(filters.page));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The labeler's address for a sample of a dataset (the grid's filter kept for previous/next). */
export function annotatePath(datasetId: number, sampleId: number, filters?: SampleFilters): string {
  return `/datasets/${datasetId}/annotate/${sampleId}${filters ? annotateSearch(filters) : ''}`;
}
