"""Labels coloured automatically before 0006 took a colour from a hash of their name in a 16-colour
palette, so names collided (二/八, 七/四 in a dataset of digits). Those labels get distinct colours
by position from the 20-colour palette; a colour the user chose (any other value) is kept."""

import zlib

from django.db import migrations

OLD_PALETTE = [
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45",
    "#fabed4", "#469990", "#dcbeff", "#9a6324", "#800000", "#aaffc3", "#808000", "#000075",
]  # fmt: skip
PALETTE = [*OLD_PALETTE, "#ffe119", "#ffd8b1", "#a9a9a9", "#fffac8"]


def hashed_colour(name: str) -> str:
    return OLD_PALETTE[zlib.crc32(name.encode()) % len(OLD_PALETTE)]


def recolour(apps, schema_editor):
    Label = apps.get_model("datasets", "Label")
    by_dataset: dict[int, list] = {}
    for label in Label.objects.order_by("dataset_id", "position", "id").only(
        "pk", "dataset_id", "name", "color"
    ):
        by_dataset.setdefault(label.dataset_id, []).append(label)
    changed = []
    for labels in by_dataset.values():
        automatic = [lab for lab in labels if lab.color in ("", hashed_colour(lab.name))]
        kept = {lab.color for lab in labels if lab not in automatic}
        free = [c for c in PALETTE if c not in kept]
        for i, label in enumerate(automatic):
            label.color = free[i] if i < len(free) else PALETTE[(len(kept) + i) % len(PALETTE)]
            changed.append(label)
    Label.objects.bulk_update(changed, ["color"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("datasets", "0005_label_position_and_shortcut"),
    ]

    operations = [migrations.RunPython(recolour, migrations.RunPython.noop)]
