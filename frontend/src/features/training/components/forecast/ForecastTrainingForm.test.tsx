import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TrainingForm } from '../TrainingForm';

/** GET /api/v1/templates/'s entry for forecasting: workers/time_series/template.py's TEMPLATE.as_dict() (2026-12-05). */
const FORECAST_TEMPLATE = {"kind": "template", "version": 1, "name": "time_series_forecasting", "title": "Time-series forecasting", "description": "Forecast the next steps of one or many time series, with prediction intervals. Statistical baselines (seasonal naive, ETS, ARIMA) are always fitted; a global LightGBM and a neural network learn across series; the backtest windows pick the model. Learned models serve with ONNX Runtime.", "data_kind": "time_series", "label_kind": "numeric_series", "default_preset": "balanced", "presets": [{"name": "fast", "title": "Fast", "description": "Seasonal naive, ETS and a small LightGBM, scored on one backtest window; the best is kept.", "values": {"model": "auto", "ensemble": false, "neural": false, "backtest_windows": 1, "n_estimators": 100}}, {"name": "balanced", "title": "Balanced", "description": "Statistical models (ETS, ARIMA, theta) and a global LightGBM scored on two backtest windows; the best is kept.", "values": {"model": "auto", "ensemble": false, "neural": false, "backtest_windows": 2, "n_estimators": 300}}, {"name": "accurate", "title": "Accurate", "description": "Every candidate, the neural network included, on three backtest windows, ensembled with weights chosen on them.", "values": {"model": "auto", "ensemble": true, "neural": true, "backtest_windows": 3, "n_estimators": 600}}], "params": [{"name": "model", "type": "choice", "title": "Model", "help": "auto: every candidate is fitted and scored on the backtest windows, the best is kept (or the candidates are ensembled); or one model: lightgbm (a global gradient-boosted model on lags, rolling means and calendar features), neural (a small network trained across series), ets, arima, theta (statistical, per series), seasonal_naive, naive.", "default": "auto", "choices": ["auto", "lightgbm", "neural", "ets", "arima", "theta", "seasonal_naive", "naive"]}, {"name": "ensemble", "type": "bool", "title": "Ensemble", "help": "auto: combine the candidates with weights chosen on the backtest windows instead of keeping the best one.", "default": false}, {"name": "neural", "type": "bool", "title": "Try the neural network", "help": "auto: also fit the neural network as a candidate (slower).", "default": false}, {"name": "backtest_windows", "type": "int", "title": "Backtest windows", "help": "Rolling-origin validation windows of one horizon each, ending where the test window starts.", "default": 2, "minimum": 1, "maximum": 10, "log": false}, {"name": "context_length", "type": "int", "title": "Context length", "help": "History points the learned models read; 0: chosen from the season length and the horizon.", "default": 0, "minimum": 0, "maximum": 2048, "log": false}, {"name": "strategy", "type": "choice", "title": "Multi-step strategy", "help": "lightgbm: direct (the horizon step is a feature, every step forecast at once) or recursive (one step at a time, each forecast fed back as history).", "default": "direct", "choices": ["direct", "recursive"]}, {"name": "n_estimators", "type": "int", "title": "Trees", "help": "lightgbm: boosting rounds.", "default": 300, "minimum": 10, "maximum": 5000, "log": false}, {"name": "learning_rate", "type": "float", "title": "Learning rate", "help": "lightgbm: shrinkage per tree; neural: peak learning rate of AdamW.", "default": 0.05, "minimum": 1e-05, "maximum": 1, "log": true}, {"name": "num_leaves", "type": "int", "title": "Leaves per tree", "help": "lightgbm: the trees' size.", "default": 31, "minimum": 4, "maximum": 1024, "log": false}, {"name": "min_child_samples", "type": "int", "title": "Rows per leaf", "help": "lightgbm: fewest training rows a leaf may hold.", "default": 20, "minimum": 1, "maximum": 500, "log": false}, {"name": "hidden_size", "type": "int", "title": "Hidden units", "help": "neural: width of the layers.", "default": 128, "minimum": 8, "maximum": 2048, "log": false}, {"name": "epochs", "type": "int", "title": "Epochs", "help": "neural: passes over the training windows.", "default": 60, "minimum": 1, "maximum": 2000, "log": false}, {"name": "interval_level", "type": "float", "title": "Interval level", "help": "The prediction interval's nominal coverage (0.8: the 10% and 90% quantiles).", "default": 0.8, "minimum": 0.5, "maximum": 0.99, "log": false}, {"name": "seed", "type": "int", "title": "Random seed", "help": "", "default": 0, "minimum": 0, "maximum": 2147483647, "log": false}], "search_space": [{"name": "n_estimators", "type": "int", "low": 50, "high": 1000, "log": true}, {"name": "learning_rate", "type": "float", "low": 0.01, "high": 0.3, "log": true}, {"name": "num_leaves", "type": "int", "low": 8, "high": 128, "log": true}, {"name": "min_child_samples", "type": "int", "low": 5, "high": 100, "log": true}, {"name": "context_length", "type": "int", "low": 0, "high": 256, "log": false}, {"name": "strategy", "type": "categorical", "choices": ["direct", "recursive"]}], "objective": {"metric": "val_mase", "direction": "minimize"}, "metrics": ["val_mase", "val_smape", "val_rmse", "val_coverage"], "data": {"min_classes": 0, "min_samples_per_class": 1, "required_splits": ["train"]}};

const VERSION = {
  id: 40, dataset: 6, number: 1, name: 'V1', note: '', seed: 0, train_ratio: 0.8, val_ratio: 0.1, test_ratio: 0.1, classes: [], counts: {}, totals: {},
  sample_count: 1218, unlabeled_excluded: 0, reviewed_only: false, horizon: 8, time_split: null, created_by: 'admin', created_at: '2026-12-05T07:00:00Z',
};

describe("the training form for forecasting", () => {
  it('offers the fast, balanced and accurate presets and the forecasting settings, without pretrained weights', async () => {
    const server = fakeApi({
      'GET /api/v1/templates/': [FORECAST_TEMPLATE],
      'GET /api/v1/backbones/': page([]),
      'POST /api/v1/training-jobs/': (call: RecordedCall) => json({ id: 91, kind: 'training.run', status: 'queued', params: call.body }, 201),
    });
    const onStarted = vi.fn();
    renderWithApp(<TrainingForm taskType="time_series_forecasting" projectId={3} versions={[VERSION]} onStarted={onStarted} />);
    const user = userEvent.setup();
    expect(await screen.findByTestId('preset-card-fast')).toHaveTextContent('Seasonal naive, ETS and a small LightGBM');
    expect(screen.getByTestId('preset-card-balanced')).toHaveAttribute('data-selected', 'true');
    expect(screen.getByTestId('preset-card-accurate')).toHaveTextContent('ensembled');
    expect(screen.queryByTestId('pretrained-weights')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('preset-card-fast'));
    await user.click(screen.getByTestId('advanced-settings-toggle'));
    expect(await screen.findByTestId('param-model')).toHaveValue('auto: fit every candidate, keep the best on the backtest windows');
    expect(screen.getByTestId('param-backtest_windows')).toHaveValue('1');
    expect(screen.getByTestId('param-backtest_windows-explain')).toHaveTextContent('score the candidates before the test window');
    expect(screen.getByTestId('param-interval_level-explain')).toHaveTextContent('0.8 means the 10% and 90% quantiles');
    await user.clear(screen.getByTestId('param-backtest_windows'));
    await user.type(screen.getByTestId('param-backtest_windows'), '3');
    await user.click(screen.getByTestId('training-start'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/training-jobs/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/training-jobs/')[0].body).toEqual({
      dataset_version: 40,
      template: 'time_series_forecasting',
      preset: 'fast',
      params: { backtest_windows: 3 },
    });
    await waitFor(() => expect(onStarted).toHaveBeenCalled());
  });

  it('is in Chinese when the UI is', async () => {
    fakeApi({ 'GET /api/v1/templates/': [FORECAST_TEMPLATE], 'GET /api/v1/backbones/': page([]) });
    await i18n.changeLanguage('zh-CN');
    try {
      renderWithApp(<TrainingForm taskType="time_series_forecasting" projectId={3} versions={[VERSION]} onStarted={vi.fn()} />);
      expect(await screen.findByTestId('preset-card-fast')).toHaveTextContent('在一个回测窗口上评分');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
