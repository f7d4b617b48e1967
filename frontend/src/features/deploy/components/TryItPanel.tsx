import { Alert, Badge, Button, Checkbox, FileButton, Group, Image, NumberInput, Paper, Progress, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { useEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/client';
import type { components } from '@/api/schema';
import { WithReason } from '@/components/WithReason';
import { formatBytes, formatPercent } from '@/lib/numbers';
import { errorMessage } from '@/lib/notifications';
import type { Deployment } from '../api/deployments';
import { BoxedImage } from '@/components/BoxedImage';
import { classColor } from '@/components/boxColors';
import {
  DETECTION_DEFAULTS,
  detectionsOf,
  exampleRow,
  inputKindOf,
  isDetectorTemplate,
  parseRows,
  TRY_MAX_BATCH,
  type DetectionPrediction,
  type PredictResult,
  type TryInput,
} from '../api/predict';
import { formatMs } from '../api/usage';
import { useModelVersion, useTryPredict } from '../hooks/useDeploy';
import { ForecastTryPanel } from './ForecastTryPanel';

type ClassScore = components['schemas']['ClassScore'];
type PredictedValue = components['schemas']['PredictedValue'];
type Target = { modelVersion: number } | { deployment: number };

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/bmp', 'image/webp', 'image/tiff'];

/** One instance's answer: ranked classes as bars with their probabilities, or a predicted value. */
function InstanceAnswer({ answer, index }: { answer: PredictResult; index: number }) {
  const { t } = useTranslation('deploy');
  const prediction = answer.predictions[index];
  const topK = 'top_k' in prediction ? prediction.top_k : [];
  const id = (name: string) => (index === 0 ? `try-${name}` : `try-${index}-${name}`);
  if (answer.kind === 'regression_prediction') {
    return (
      <>
        {(topK as PredictedValue[]).map((entry, rank) => (
          <Text key={rank} fw={700} size="xl" data-testid={`${id('value')}-${rank}`}>
            {String(entry.value)}
          </Text>
        ))}
      </>
    );
  }
  return (
    <Stack gap="xs" role="list" aria-label={t('try.classesChart')}>
      {(topK as ClassScore[]).map((entry, rank) => (
        <div key={entry.index} role="listitem" data-testid={`${id('label')}-${rank}`} data-label={entry.label} data-score={entry.score}>
          <Group justify="space-between" gap="xs">
            <Text fw={rank === 0 ? 700 : 400}>{entry.label}</Text>
            <Text size="sm" c="dimmed">
              {formatPercent(entry.score, 1)}
            </Text>
          </Group>
          <Progress value={entry.score * 100} color={rank === 0 ? 'teal' : 'blue'} size="md" aria-label={`${entry.label} ${formatPercent(entry.score, 1)}`} />
        </div>
      ))}
    </Stack>
  );
}

/**
 * A detector's answer for one image: the image with its boxes drawn (label colours in the model's
 * class order) and the boxes listed by score.
 */
function DetectionAnswer({ prediction, preview, classes, index }: { prediction: DetectionPrediction; preview?: string; classes: string[]; index: number }) {
  const { t } = useTranslation('deploy');
  const id = (name: string) => (index === 0 ? `try-${name}` : `try-${index}-${name}`);
  const boxes = prediction.boxes.map((box) => ({ ...box, color: classColor(box.label, classes) }));
  return (
    <Stack gap="xs">
      {preview && (
        <BoxedImage
          src={preview}
          width={prediction.width}
          height={prediction.height}
          boxes={boxes}
          maxWidth={Math.max(320, Math.min(prediction.width, 480))}
          alt={t('try.chosenImage')}
          testId={id('boxes')}
        />
      )}
      <Text size="sm" c="dimmed" data-testid={id('box-count')} data-count={prediction.boxes.length}>
        {t('try.boxesFound', { count: prediction.boxes.length })}
      </Text>
      <Stack gap={2} role="list" aria-label={t('try.boxesList')}>
        {prediction.boxes.map((box, rank) => (
          <Group key={rank} gap="xs" role="listitem" data-testid={`${id('box')}-${rank}`} data-label={box.label} data-score={box.score}>
            <span style={{ width: 10, height: 10, borderRadius: 2, background: classColor(box.label, classes) }} />
            <Text size="sm" fw={rank === 0 ? 700 : 400}>
              {box.label}
            </Text>
            <Text size="xs" c="dimmed">
              {formatPercent(box.score, 1)} · {t('try.boxAt', { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) })}
            </Text>
          </Group>
        ))}
      </Stack>
    </Stack>
  );
}

/** The answer of a try: the model version, server and round-trip time, each instance's answer. */
function TryAnswer({ answer, names, previews = [] }: { answer: PredictResult; names: string[]; previews?: string[] }) {
  const { t } = useTranslation('deploy');
  const batch = answer.predictions.length > 1;
  const detections = detectionsOf(answer);
  // the model's class order, as far as the answer tells it (box indices), for stable label colours
  const classes: string[] = [];
  for (const box of (detections ?? []).flatMap((prediction) => prediction.boxes)) classes[box.index] = box.label;
  return (
    <Paper withBorder p="md" data-testid="try-result">
      <Group justify="space-between" mb="sm">
        <Badge variant="light" data-testid="try-model-version">
          {answer.model_version.name}
        </Badge>
        <Group gap="xs">
          <Badge variant="outline" color="teal" data-testid="try-latency" title={t('try.serverTimeHint')}>
            {t('try.serverTime', { time: formatMs(answer.latency_ms) })}
          </Badge>
          <Badge variant="outline" color="gray" title={t('try.roundTripHint')}>
            {t('try.roundTrip', { time: formatMs(answer.roundTripMs) })}
          </Badge>
        </Group>
      </Group>
      <Stack gap="md" data-testid="try-top-k-list">
        {answer.predictions.map((_, index) => (
          <Stack key={index} gap={4} data-testid={`try-answer-${index}`}>
            {batch && (
              <Text size="sm" fw={600} truncate="end">
                {names[index] ?? t('try.instance', { number: index + 1 })}
              </Text>
            )}
            {detections ? (
              <DetectionAnswer prediction={detections[index]} preview={previews[index]} classes={classes} index={index} />
            ) : (
              <InstanceAnswer answer={answer} index={index} />
            )}
          </Stack>
        ))}
      </Stack>
    </Paper>
  );
}

/**
 * Drop images (or type texts, or table rows as JSON), one or a small batch, and see the answer of
 * the model: a model version before it is deployed, or what a deployment serves now. Signed in:
 * no deployment key is needed or kept (keys are for code, see the Keys and Code tabs).
 */
function TryPanel(props: { target: Target; template?: string; modelVersionId?: number; notice?: ReactNode }) {
  if (inputKindOf(props.template) === 'forecast') return <ForecastTryPanel target={props.target} modelVersionId={props.modelVersionId} notice={props.notice} />;
  return <PredictTryPanel {...props} />;
}

function PredictTryPanel({ target, template, modelVersionId, notice }: { target: Target; template?: string; modelVersionId?: number; notice?: ReactNode }) {
  const { t } = useTranslation('deploy');
  const kind = inputKindOf(template);
  const { data: modelVersion } = useModelVersion(kind === 'tabular' && modelVersionId !== undefined ? modelVersionId : null);
  const example = kind === 'tabular' ? exampleRow(modelVersion?.preprocessing) : null;
  const [text, setText] = useState('');
  const [perLine, setPerLine] = useState(false);
  const [inputError, setInputError] = useState<string | null>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [previews, setPreviews] = useState<string[]>([]);
  const [names, setNames] = useState<string[]>([]);
  const [topK, setTopK] = useState<number | string>(5);
  const detector = isDetectorTemplate(template);
  const [scoreThreshold, setScoreThreshold] = useState<number | string>(DETECTION_DEFAULTS.scoreThreshold);
  const [maxDetections, setMaxDetections] = useState<number | string>(DETECTION_DEFAULTS.maxDetections);
  const [answeredPreviews, setAnsweredPreviews] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const predict = useTryPredict(target);

  // The picked images' object URLs: made when picked, released when others are or the panel goes.
  const previewUrls = useRef<string[]>([]);
  useEffect(
    () => () => {
      previewUrls.current.forEach((url) => URL.revokeObjectURL(url));
    },
    [],
  );

  const pick = (next: File[]) => {
    previewUrls.current.forEach((url) => URL.revokeObjectURL(url));
    const chosen = next.slice(0, TRY_MAX_BATCH);
    previewUrls.current = chosen.map((file) => URL.createObjectURL(file));
    setPreviews(previewUrls.current);
    setFiles(chosen);
    setInputError(next.length > TRY_MAX_BATCH ? t('try.tooMany', { max: TRY_MAX_BATCH }) : null);
    predict.reset();
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const dropped = Array.from(event.dataTransfer.files ?? []);
    if (dropped.length) pick(dropped);
  };

  const ready = kind === 'image' ? files.length > 0 : text.trim() !== '';
  const run = () => {
    if (!ready) return;
    setInputError(null);
    let input: TryInput;
    let labels: string[];
    if (kind === 'image') {
      input = { files };
      labels = files.map((file) => file.name);
    } else if (kind === 'text') {
      const texts = perLine ? text.split('\n').filter((line) => line.trim() !== '') : [text];
      if (texts.length > TRY_MAX_BATCH) {
        setInputError(t('try.tooMany', { max: TRY_MAX_BATCH }));
        return;
      }
      input = { texts };
      labels = texts;
    } else {
      try {
        const rows = parseRows(text);
        if (rows.length > TRY_MAX_BATCH) throw new Error(t('try.tooMany', { max: TRY_MAX_BATCH }));
        input = { rows };
        labels = rows.map((_, index) => t('try.row', { number: index + 1 }));
      } catch (error) {
        setInputError(error instanceof Error ? error.message : String(error));
        return;
      }
    }
    setNames(labels);
    setAnsweredPreviews(kind === 'image' ? previews : []);
    const detection = detector
      ? {
          scoreThreshold: typeof scoreThreshold === 'number' ? scoreThreshold : DETECTION_DEFAULTS.scoreThreshold,
          maxDetections: typeof maxDetections === 'number' ? maxDetections : DETECTION_DEFAULTS.maxDetections,
        }
      : undefined;
    predict.mutate({ ...input, topK: typeof topK === 'number' ? topK : 5, detection });
  };

  const answer = predict.data;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Stack>
        {notice}
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
              {previews.length > 0 ? (
                <Group gap="xs" justify="center">
                  {previews.map((url, index) => (
                    <Image
                      key={url}
                      src={url}
                      alt={files[index]?.name ?? t('try.chosenImage')}
                      h={previews.length > 1 ? 72 : 160}
                      w="auto"
                      fit="contain"
                      data-testid={index === 0 ? 'try-preview' : `try-preview-${index}`}
                      style={{ imageRendering: 'pixelated' }}
                    />
                  ))}
                </Group>
              ) : (
                <Text c="dimmed" ta="center">
                  {t('try.dropHere', { max: TRY_MAX_BATCH })}
                </Text>
              )}
              <Group gap="xs">
                <FileButton onChange={pick} accept={IMAGE_TYPES.join(',')} multiple>
                  {(props) => (
                    <Button variant="light" size="xs" {...props} data-testid="try-choose">
                      {files.length ? t('try.chooseOther') : t('try.choose')}
                    </Button>
                  )}
                </FileButton>
                {files.length === 1 && (
                  <Text size="xs" c="dimmed" data-testid="try-file-name">
                    {files[0].name} · {formatBytes(files[0].size)}
                  </Text>
                )}
                {files.length > 1 && (
                  <Text size="xs" c="dimmed" data-testid="try-file-name">
                    {t('try.images', { count: files.length })}
                  </Text>
                )}
              </Group>
            </Stack>
          </Paper>
        ) : (
          <Textarea
            label={kind === 'text' ? t('try.textLabel') : t('try.rowLabel')}
            description={kind === 'tabular' ? t('try.rowHint', { max: TRY_MAX_BATCH }) : undefined}
            // i18n-ignore: a JSON example, the same in every language
            placeholder={kind === 'text' ? t('try.textPlaceholder') : '{"alcohol": 13.2, "malic_acid": 1.78}'}
            autosize
            minRows={5}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            styles={kind === 'tabular' ? { input: { fontFamily: 'var(--mantine-font-family-monospace)' } } : undefined}
            data-testid="try-text"
          />
        )}
        {kind === 'text' && (
          <Checkbox
            label={t('try.perLine', { max: TRY_MAX_BATCH })}
            checked={perLine}
            onChange={(event) => setPerLine(event.currentTarget.checked)}
            data-testid="try-per-line"
          />
        )}
        {inputError && (
          <Text c="red" size="sm" data-testid="try-input-error">
            {inputError}
          </Text>
        )}
        {example && (
          <Group>
            <Button variant="subtle" size="xs" onClick={() => setText(JSON.stringify(example, null, 2))} data-testid="try-example-row">
              {t('try.exampleRow', { count: Object.keys(example).length })}
            </Button>
          </Group>
        )}
        <Group align="flex-end">
          {detector ? (
            <>
              <NumberInput
                label={t('try.scoreThreshold')}
                min={0}
                max={1}
                step={0.05}
                decimalScale={2}
                value={scoreThreshold}
                onChange={setScoreThreshold}
                w={130}
                data-testid="try-score-threshold"
              />
              <NumberInput
                label={t('try.maxDetections')}
                min={1}
                max={DETECTION_DEFAULTS.maxDetectionsLimit}
                allowDecimal={false}
                value={maxDetections}
                onChange={setMaxDetections}
                w={130}
                data-testid="try-max-detections"
              />
            </>
          ) : (
            <NumberInput label={t('try.topK')} min={1} max={20} allowDecimal={false} value={topK} onChange={setTopK} w={100} data-testid="try-top-k" />
          )}
          <WithReason reason={!ready && (kind === 'image' ? t('try.needImage') : kind === 'text' ? t('try.needText') : t('try.needRow'))}>
            <Button onClick={run} disabled={!ready} loading={predict.isPending} data-testid="try-submit">
              {t('try.predict')}
            </Button>
          </WithReason>
        </Group>
      </Stack>
      <Stack>
        <Title order={5}>{t('try.answer')}</Title>
        {predict.isError && (
          <Alert
            color="red"
            variant="light"
            title={predict.error instanceof ApiError ? `${predict.error.status || t('try.network')} ${predict.error.code}` : t('try.failed')}
            data-testid="try-error"
          >
            {errorMessage(predict.error)}
          </Alert>
        )}
        {!answer && !predict.isError && (
          <Text c="dimmed" size="sm">
            {kind === 'image' ? t('try.promptImage') : kind === 'text' ? t('try.promptText') : t('try.promptRow')}
          </Text>
        )}
        {answer && <TryAnswer answer={answer} names={names} previews={answeredPreviews} />}
      </Stack>
    </SimpleGrid>
  );
}

/**
 * The deployment's Try it: answered by the model version it serves now, signed in, so it needs no
 * key and keeps working after a reload; keys are for code (Keys and Code tabs).
 */
export function TryItPanel({
  deployment,
}: {
  deployment: Pick<Deployment, 'id' | 'status'> & { template?: string; model_version?: number };
}) {
  const { t } = useTranslation('deploy');
  return (
    <TryPanel
      target={{ deployment: deployment.id }}
      template={deployment.template}
      modelVersionId={deployment.model_version}
      notice={
        <>
          {deployment.status !== 'active' && (
            <Alert color="yellow" variant="light" data-testid="try-stopped">
              {t('try.stopped')}
            </Alert>
          )}
          <Text size="sm" c="dimmed" data-testid="try-no-key">
            {t('try.noKeyNeeded')}
          </Text>
        </>
      }
    />
  );
}

/** Try a model version before deploying it (EasyDL's 校验模型): no deployment, no key, no usage. */
export function ModelVersionTryPanel({ version }: { version: { id: number; name: string; template?: string } }) {
  const { t } = useTranslation('deploy');
  return (
    <Paper withBorder p="md" data-testid="model-version-try">
      <Stack gap="sm">
        <div>
          <Title order={5}>{t('try.titleVersion', { name: version.name })}</Title>
          <Text size="sm" c="dimmed">
            {t('try.introVersion')}
          </Text>
        </div>
        <TryPanel target={{ modelVersion: version.id }} template={version.template} modelVersionId={version.id} />
      </Stack>
    </Paper>
  );
}
