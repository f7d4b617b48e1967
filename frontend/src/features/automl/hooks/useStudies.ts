import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { listTemplates } from '@/api/templates';
import { createCustomStudy, listCodeArchives } from '../api/customStudies';
import { automlKeys } from '../api/keys';
import {
  createStudy,
  getResults,
  getStudy,
  getStudyDefaults,
  isLive,
  listDatasets,
  listDatasetVersions,
  listProjects,
  listStudies,
  listTrials,
  promoteTrial,
  studyAction,
  type StudyAction,
} from '../api/studies';

export const LIVE_INTERVAL_MS = 2000;

export function useStudies(projectId?: number) {
  return useQuery({ queryKey: automlKeys.studyList(projectId), queryFn: () => listStudies(projectId), refetchInterval: LIVE_INTERVAL_MS * 2 });
}

/** A study, polled while trials can still change. */
export function useStudy(id: number) {
  return useQuery({
    queryKey: automlKeys.study(id),
    queryFn: () => getStudy(id),
    enabled: Number.isFinite(id),
    refetchInterval: (query) => (query.state.data && !isLive(query.state.data) ? false : LIVE_INTERVAL_MS),
  });
}

/** Trials, polled while the study is live and until none of them reads running any more (a trial's last
 * state can land after the poll that saw the study finish). */
export function useTrials(id: number, live: boolean) {
  return useQuery({
    queryKey: automlKeys.trials(id),
    queryFn: () => listTrials(id),
    enabled: Number.isFinite(id),
    refetchInterval: (query) => (live || query.state.data?.some((trial) => trial.state === 'running') ? LIVE_INTERVAL_MS : false),
  });
}

/** The budget that fits the workers online for a template (refreshed as workers come and go). */
export function useStudyDefaults(template: string | null) {
  return useQuery({
    queryKey: automlKeys.defaults(template ?? ''),
    queryFn: () => getStudyDefaults(template as string),
    enabled: !!template,
    staleTime: 10_000,
  });
}

/** Results poll while the study runs or its lift report is still training. */
export function useResults(id: number, live: boolean) {
  return useQuery({
    queryKey: automlKeys.results(id),
    queryFn: () => getResults(id),
    enabled: Number.isFinite(id),
    refetchInterval: (query) => (live || query.state.data?.lift.status === 'running' ? LIVE_INTERVAL_MS * 2 : false),
  });
}

export function useCreateStudy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createStudy,
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: automlKeys.studies }),
  });
}

export function useStudyAction(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: StudyAction) => studyAction(id, action),
    onSuccess: (study) => {
      queryClient.setQueryData(automlKeys.study(id), study);
      void queryClient.invalidateQueries({ queryKey: automlKeys.study(id) });
    },
  });
}

export function usePromote(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (trial?: number) => promoteTrial(id, trial),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: automlKeys.study(id) }),
  });
}

export function useProjects() {
  return useQuery({ queryKey: automlKeys.projects, queryFn: listProjects });
}

export function useDatasets(projectId: number | null) {
  return useQuery({ queryKey: automlKeys.datasets(projectId ?? -1), queryFn: () => listDatasets(projectId as number), enabled: projectId !== null });
}

export function useDatasetVersions(datasetId: number | null) {
  return useQuery({ queryKey: automlKeys.versions(datasetId ?? -1), queryFn: () => listDatasetVersions(datasetId as number), enabled: datasetId !== null });
}

export function useTemplates() {
  return useQuery({ queryKey: automlKeys.templates, queryFn: listTemplates, staleTime: 5 * 60_000 });
}

export function useCreateCustomStudy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createCustomStudy,
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: automlKeys.studies }),
  });
}

export function useCodeArchives(projectId: number | null) {
  return useQuery({ queryKey: automlKeys.codeArchives(projectId ?? -1), queryFn: () => listCodeArchives(projectId as number), enabled: projectId !== null });
}
