import { MAX_PICKED_SAMPLES } from '../../api/samples';
import { annotatePath } from '../detection/annotateLink';

/**
 * The labeler opened on a finding's samples: the grid filtered to them (`?samples=`), or for object
 * detection the box labeler on the first with the rest as its queue (`?ids=`). Ids of samples deleted
 * since a version was made (negative in a version's report) are left out; null when none is left.
 */
export function labelerLink(datasetId: number, taskType: string, sampleIds: number[]): string | null {
  const ids = [...new Set(sampleIds.filter((id) => Number.isInteger(id) && id > 0))].slice(0, MAX_PICKED_SAMPLES);
  if (ids.length === 0) return null;
  if (taskType === 'object_detection') {
    return annotatePath(datasetId, ids[0], { label: null, search: '', page: 1, ids });
  }
  return `/datasets/${datasetId}/label?samples=${ids.join(',')}`;
}

/** The sample's thumbnail (images only). */
export function thumbnailUrl(datasetId: number, sampleId: number): string {
  return `/api/v1/datasets/${datasetId}/samples/${sampleId}/thumbnail/`;
}

/** "≤ 0.12", "0.12–0.3", "> 0.9": a histogram bucket's name from its edges. */
export function bucketName(edges: number[], index: number): string {
  const round = (value: number) => (Math.abs(value) >= 100 ? Math.round(value).toString() : String(Math.round(value * 100) / 100));
  return `${round(edges[index])}–${round(edges[index + 1])}`;
}
