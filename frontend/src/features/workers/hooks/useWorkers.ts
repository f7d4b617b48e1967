import { useQuery } from '@tanstack/react-query';
import { listWorkers, workerKeys } from '../api/workers';

export function useWorkers() {
  return useQuery({ queryKey: workerKeys.list, queryFn: listWorkers, refetchInterval: 15_000 });
}
