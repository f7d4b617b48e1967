import { Alert, Badge, Button, FileButton, Group, Image, NumberInput, Paper, PasswordInput, Progress, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { ApiError } from '@/api/client';
import type { components } from '@/api/schema';
import { errorMessage } from '@/lib/notifications';
import type { Deployment } from '../api/deployments';
import { absolutePredictUrl } from '../api/deployments';
import { exampleRow, inputKindOf, parseRow } from '../api/predict';
import { formatMs } from '../api/usage';
import { useModelVersion, usePredict, useSessionKey } from '../hooks/useDeploy';

type ClassScore = components['schemas']['ClassScore'];
type PredictedValue = components['schemas']['PredictedValue'];

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/bmp', 'image/webp', 'image/tiff'];

/**
 * Drop an image (or type a text, or a table row as JSON, for those templates), call the
 * deployment's prediction endpoint with a key, see the top-k answer.
 */
export function TryItPanel({
  deployment,
}: {
  deployment: Pick<Deployment, 'id' | 'predict_url' | 'status'> & { template?: string; model_version?: number };
}) {
  const kind = inputKindOf(deployment.template);
  const { data: modelVersion } = useModelVersion(kind === 'tabular' && deployment.model_version !== undefined ? deployment.model_version : null);
  const example = kind === 'tabular' ? exampleRow(modelVersion?.preprocessing) : null;
  const [text, setText] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);
  const sessionKey = useSessionKey(deployment.id);
  const [apiKey, setApiKey] = useState(sessionKey?.key ?? '');
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [topK, setTopK] = useState<number | string>(5);
  const [dragging, setDragging] = useState(false);
  const predict = usePredict(deployment.id);

  // A key created in this tab after the panel mounted fills an empty field (adjusted while rendering).
  const [seenKey, setSeenKey] = useState(sessionKey?.key);
  if (sessionKey?.key !== seenKey) {
    setSeenKey(sessionKey?.key);
    if (sessionKey?.key) setApiKey((current) => current || sessionKey.key);
  }

  // The picked image's object URL: made when it is picked, released when another is or the panel goes.
  const previewUrl = useRef<string | null>(null);
  useEffect(
    () => () => {
      if (previewUrl.current) URL.revokeObjectURL(previewUrl.current);
    },
    [],
  );

  const pick = (next: File | null) => {
    if (previewUrl.current) URL.revokeObjectURL(previewUrl.current);
    previewUrl.current = next ? URL.createObjectURL(next) : null;
    setPreview(previewUrl.current);
    setFile(next);
    predict.reset();
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer.files?.[0];
    if (dropped) pick(dropped);
  };

  const ready = kind === 'image' ? file !== null : text.trim() !== '';
  const run = () => {
    if (!ready || !apiKey.trim()) return;
    const common = { url: absolutePredictUrl(deployment), apiKey, topK: typeof topK === 'number' ? topK : 5 };
    setInputError(null);
    if (kind === 'image' && file) predict.mutate({ ...common, file });
    else if (kind === 'text') predict.mutate({ ...common, text });
    else {
      try {
        predict.mutate({ ...common, row: parseRow(text) });
      } catch (error) {
        setInputError(error instanceof Error ? error.message : String(error));
      }
    }
  };

  const answer = predict.data;
  // The answer's kind says what top_k holds: ranked classes, or one predicted value.
  const first = answer?.predictions[0];
  const values = answer?.kind === 'regression_prediction' && first ? (first.top_k as PredictedValue[]) : [];
  const classes = answer?.kind === 'classification_prediction' && first ? (first.top_k as ClassScore[]) : [];
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Stack>
        {deployment.status !== 'active' && (
          <Alert color="yellow" variant="light" data-testid="try-stopped">
            This deployment is stopped: calls are refused until you start it.
          </Alert>
        )}
        {kind === 'image' ? (
        <Paper
          withBorder
          p="lg"
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          style={{ borderStyle: 'dashed', borderWidth: 2, background: dragging ? 'var(--mantine-color-blue-light)' : undefined }}
          data-testid="try-dropzone"
        >
          <Stack align="center" gap="xs">
            {preview ? (
              <Image src={preview} alt={file?.name ?? 'chosen image'} h={160} w="auto" fit="contain" data-testid="try-preview" style={{ imageRendering: 'pixelated' }} />
            ) : (
              <Text c="dimmed" ta="center">
                Drop an image here
              </Text>
            )}
            <Group gap="xs">
              <FileButton onChange={pick} accept={IMAGE_TYPES.join(',')}>
                {(props) => (
                  <Button variant="light" size="xs" {...props} data-testid="try-choose">
                    {file ? 'Choose another image' : 'Choose an image'}
                  </Button>
                )}
              </FileButton>
              {file && (
                <Text size="xs" c="dimmed" data-testid="try-file-name">
                  {file.name} · {(file.size / 1024).toFixed(1)} KiB
                </Text>
              )}
            </Group>
          </Stack>
        </Paper>
        ) : (
          <Textarea
            label={kind === 'text' ? 'Text to classify' : 'Row (JSON: column -> value)'}
            placeholder={kind === 'text' ? 'Type or paste a text' : '{"alcohol": 13.2, "malic_acid": 1.78}'}
            autosize
            minRows={5}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            error={inputError}
            styles={kind === 'tabular' ? { input: { fontFamily: 'var(--mantine-font-family-monospace)' } } : undefined}
            data-testid="try-text"
          />
        )}
        {example && (
          <Group>
            <Button variant="subtle" size="xs" onClick={() => setText(JSON.stringify(example, null, 2))} data-testid="try-example-row">
              Fill in an example row ({Object.keys(example).length} columns)
            </Button>
          </Group>
        )}
        <PasswordInput
          label="Deployment key"
          description={sessionKey ? `Filled with “${sessionKey.name}”, created in this tab.` : 'Paste a key of this deployment (Keys tab).'}
          placeholder="spd_..."
          value={apiKey}
          onChange={(event) => setApiKey(event.currentTarget.value)}
          data-testid="try-key"
        />
        <Group align="flex-end">
          <NumberInput label="Top k" min={1} max={20} allowDecimal={false} value={topK} onChange={setTopK} w={100} data-testid="try-top-k" />
          <Button onClick={run} disabled={!ready || !apiKey.trim()} loading={predict.isPending} data-testid="try-submit">
            Predict
          </Button>
        </Group>
      </Stack>
      <Stack>
        <Title order={5}>Answer</Title>
        {predict.isError && (
          <Alert color="red" variant="light" title={predict.error instanceof ApiError ? `${predict.error.status || 'network'} ${predict.error.code}` : 'Failed'} data-testid="try-error">
            {errorMessage(predict.error)}
          </Alert>
        )}
        {!answer && !predict.isError && (
          <Text c="dimmed" size="sm">
            {kind === 'image' ? 'Choose an image' : kind === 'text' ? 'Type a text' : 'Write a row'} and press Predict.
          </Text>
        )}
        {answer && (
          <Paper withBorder p="md" data-testid="try-result">
            <Group justify="space-between" mb="sm">
              <Badge variant="light" data-testid="try-model-version">
                {answer.model_version.name}
              </Badge>
              <Group gap="xs">
                <Badge variant="outline" color="teal" data-testid="try-latency" title="Time spent by the server on the prediction">
                  server {formatMs(answer.latency_ms)}
                </Badge>
                <Badge variant="outline" color="gray" title="From this browser, including the network">
                  round trip {formatMs(answer.roundTripMs)}
                </Badge>
              </Group>
            </Group>
            <Stack gap="xs" data-testid="try-top-k-list">
              {values.map((entry, rank) => (
                <Text key={rank} fw={700} size="xl" data-testid={`try-value-${rank}`}>
                  {String(entry.value)}
                </Text>
              ))}
              {classes.map((entry, rank) => (
                <div key={entry.index} data-testid={`try-label-${rank}`} data-label={entry.label} data-score={entry.score}>
                  <Group justify="space-between" gap="xs">
                    <Text fw={rank === 0 ? 700 : 400}>{entry.label}</Text>
                    <Text size="sm" c="dimmed">
                      {(entry.score * 100).toFixed(1)}%
                    </Text>
                  </Group>
                  <Progress value={entry.score * 100} color={rank === 0 ? 'teal' : 'blue'} size="md" aria-label={`${entry.label} ${(entry.score * 100).toFixed(1)}%`} />
                </div>
              ))}
            </Stack>
          </Paper>
        )}
      </Stack>
    </SimpleGrid>
  );
}
