import { Button, Code, CopyButton, Group, Stack, Tabs, Text } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';
import { forecastContractOf } from '@/lib/forecasting';
import { absolutePredictUrl, type Deployment } from '../api/deployments';
import { inputKindOf, isDetectorTemplate } from '../api/predict';
import { predictSnippet, SNIPPET_LANGUAGES } from '../api/snippets';

/** Copy-paste code that calls this deployment: curl, the Python SDK and JavaScript fetch. */
export function SnippetsPanel({ deployment }: { deployment: Pick<Deployment, 'id' | 'predict_url'> & { template?: string } }) {
  const { t } = useTranslation(['deploy', 'common']);
  const kind = inputKindOf(deployment.template);
  const predictUrl = absolutePredictUrl(deployment);
  const baseUrl = window.location.origin;
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        <Trans t={t} i18nKey={`snippets.intro.${isDetectorTemplate(deployment.template) ? 'detection' : kind}`} components={{ c: <Code /> }} />
      </Text>
      <Tabs defaultValue="curl" keepMounted={false}>
        <Tabs.List>
          {SNIPPET_LANGUAGES.map((language) => (
            <Tabs.Tab key={language.value} value={language.value} data-testid={`snippet-tab-${language.value}`}>
              {language.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {SNIPPET_LANGUAGES.map((language) => {
          const code = predictSnippet(language.value, {
            predictUrl,
            deploymentId: deployment.id,
            baseUrl,
            kind,
            detector: isDetectorTemplate(deployment.template),
            contract: kind === 'forecast' ? forecastContractOf(deployment as { forecast_contract?: unknown }) : null,
          });
          return (
            <Tabs.Panel key={language.value} value={language.value} pt="sm">
              <Stack gap="xs">
                <Group justify="flex-end">
                  <CopyButton value={code}>
                    {({ copied, copy }) => (
                      <Button size="xs" variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} data-testid={`snippet-copy-${language.value}`}>
                        {copied ? t('common:actions.copied') : t('common:actions.copy')}
                      </Button>
                    )}
                  </CopyButton>
                </Group>
                <Code block fz="xs" data-testid={`snippet-${language.value}`}>
                  {code}
                </Code>
              </Stack>
            </Tabs.Panel>
          );
        })}
      </Tabs>
    </Stack>
  );
}
