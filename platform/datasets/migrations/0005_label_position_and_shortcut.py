"""Labels get a position (the user's order) and a chosen shortcut key. Existing labels keep the
order they were shown in until now (by name), numbered per dataset."""

from django.db import migrations, models


def number_labels_in_name_order(apps, schema_editor):
    Label = apps.get_model("datasets", "Label")
    changed, dataset, position = [], None, 0
    for label in Label.objects.order_by("dataset_id", "name", "id").only("pk", "dataset_id", "position"):
        if label.dataset_id != dataset:
            dataset, position = label.dataset_id, 0
        label.position = position
        position += 1
        changed.append(label)
    Label.objects.bulk_update(changed, ["position"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("datasets", "0004_generic_dataset_kinds"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="label",
            options={"ordering": ["position", "id"]},
        ),
        migrations.AddField(
            model_name="label",
            name="position",
            field=models.PositiveIntegerField(
                default=0,
                help_text="The label's place in the dataset's order (the user's): class indices, keys, reports.",
            ),
        ),
        migrations.AddField(
            model_name="label",
            name="shortcut",
            field=models.CharField(
                blank=True,
                help_text="The key the user chose for this label in the labeling grid; blank: the default key.",
                max_length=1,
            ),
        ),
        migrations.AddConstraint(
            model_name="label",
            constraint=models.UniqueConstraint(
                condition=models.Q(("shortcut", ""), _negated=True),
                fields=("dataset", "shortcut"),
                name="label_shortcut_unique_in_dataset",
            ),
        ),
        migrations.RunPython(number_labels_in_name_order, migrations.RunPython.noop),
    ]
