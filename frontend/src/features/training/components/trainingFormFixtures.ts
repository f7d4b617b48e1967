/** A template description as GET /api/v1/templates/ answers it (the training form's tests). */
export const TEMPLATE = {
  kind: 'template',
  version: 1,
  name: 'image_classification',
  title: 'Image classification',
  description: 'Assign one label to each image.',
  data_kind: 'image',
  label_kind: 'single_label',
  default_preset: 'balanced',
  presets: [
    { name: 'fast', title: 'Fast', description: 'A small CNN.', values: { model: 'cnn_small', epochs: 10, image_size: 32, schedule: 'onecycle' } },
    { name: 'balanced', title: 'Balanced', description: 'A narrow ResNet.', values: { model: 'resnet_narrow', epochs: 15, image_size: 64 } },
    { name: 'accurate', title: 'Accurate', description: 'ResNet-18.', values: { model: 'resnet18', epochs: 30, image_size: 128 } },
  ],
  params: [
    { name: 'model', type: 'choice', title: 'Model', help: 'The network.', default: 'resnet_narrow', choices: ['cnn_small', 'resnet_narrow', 'resnet18'] },
    { name: 'epochs', type: 'int', title: 'Epochs', help: 'Passes over the training split.', default: 15, minimum: 1, maximum: 500, log: false },
    { name: 'learning_rate', type: 'float', title: 'Learning rate', help: 'Peak learning rate.', default: 0.002, minimum: 0.000001, maximum: 1, log: true },
    { name: 'horizontal_flip', type: 'bool', title: 'Horizontal flip', help: 'Mirror images.', default: true },
    { name: 'warmup_epochs', type: 'int', title: 'Warm-up epochs', help: '', default: 1, minimum: 0, maximum: 50, log: false },
  ],
  search_space: [],
  objective: { metric: 'val_acc', direction: 'maximize' },
  metrics: ['loss'],
  data: { min_classes: 2, min_samples_per_class: 1, required_splits: ['train'] },
};
