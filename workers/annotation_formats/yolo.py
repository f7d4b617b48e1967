"""YOLO txt: one label file per image, a line per box ``class x_center y_center width height``,
all four normalized to the image's size (Ultralytics, Darknet, CVAT, Roboflow). A line with more
than four coordinates (``class x1 y1 x2 y2 ...``, a segmentation polygon) is read as its bounding
box.

Pairing: ``images/<sub>/a.jpg`` with ``labels/<sub>/a.txt`` (the last ``images`` folder of the
path becomes ``labels``), or ``a.txt`` next to ``a.jpg``. An image without a label file is
unlabeled; an empty label file means no objects; a label file without its image is reported.

Class names, in this order of preference: a ``data.yaml`` (or another ``*.yaml``/``*.yml`` with
``names:`` as a list or an ``{index: name}`` mapping), ``classes.txt``, ``obj.names`` (a name per
line). Without one the archive is refused: class indexes alone name nothing.

Writing: ``images/``, ``labels/``, ``classes.txt`` and a ``data.yaml``; coordinates with six
decimals. Unlabeled images get no label file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from workers.annotation_formats.builder import SetBuilder, import_problem
from workers.annotation_formats.tree import DirectoryTree
from workers.annotation_formats.writing import ImageCopier, ImageSource, class_list, image_size
from workers.contracts.annotations import ImportProblem, InterchangeSet

NAME_FILES = ("classes.txt", "obj.names")
YAML_SUFFIXES = (".yaml", ".yml")
LABELS_FOLDER, IMAGES_FOLDER = "labels", "images"
DECIMALS = 6


@dataclass
class YoloLayout:
    """The label file of each image, label files without an image, and the class names."""

    labels: dict[str, str]  # image -> label file
    orphans: list[str]
    names: list[str | int | float] | None = None
    names_file: str | None = None
    problems: list[ImportProblem] = field(default_factory=list)

    def evidence(self) -> str:
        return next(iter(sorted(self.labels.values())), self.orphans[0] if self.orphans else "")


def _label_keys(image: str) -> list[str]:
    """Where ``image``'s label file may be, without the ``.txt``: under ``labels/``, then beside it."""
    stem = str(PurePosixPath(image).with_suffix(""))
    parts = stem.split("/")
    keys = []
    if IMAGES_FOLDER in parts[:-1]:
        at = len(parts) - 2 - parts[-2::-1].index(IMAGES_FOLDER)
        keys.append("/".join([*parts[:at], LABELS_FOLDER, *parts[at + 1 :]]))
    keys.append(stem)
    return keys


def _looks_like_labels(path: Path) -> bool:
    """Whether the file's first line with text reads as YOLO boxes (a class index and 4+ numbers)."""
    with path.open("rb") as handle:
        head = handle.read(1024).decode("utf-8", errors="replace")
    for line in head.splitlines():
        tokens = line.split()
        if not tokens:
            continue
        try:
            values = [float(token) for token in tokens]
        except ValueError:
            return False
        return len(values) >= 5 and values[0].is_integer()
    return False


def _strip_comment(line: str) -> str:
    quote = ""
    for position, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (position == 0 or line[position - 1].isspace()):
            return line[:position]
    return line


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return str(json.loads(text))
        except json.JSONDecodeError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def _flow_items(text: str) -> list[str]:
    items, current, quote = [], "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            items.append(current)
            current = ""
            continue
        current += char
    if current.strip():
        items.append(current)
    return [_scalar(item) for item in items]


def names_from_yaml_subset(text: str) -> list[str] | dict[str, str] | None:
    """``names`` of a dataset YAML without PyYAML: the flow list ``names: [a, 'b c']``, the block
    list (``- a`` lines) and the block mapping (``0: a`` lines) that YOLO tools write. None when the
    text has no top-level ``names``."""
    lines = [_strip_comment(line).rstrip() for line in text.splitlines()]
    for position, line in enumerate(lines):
        if not line.startswith("names:"):
            continue
        value = line[len("names:") :].strip()
        if value.startswith("[") and value.endswith("]"):
            return _flow_items(value[1:-1])
        if value.startswith("{") and value.endswith("}"):
            pairs = [item.split(":", 1) for item in _flow_items(value[1:-1]) if ":" in item]
            return {_scalar(key): _scalar(name) for key, name in pairs}
        block = []
        for following in lines[position + 1 :]:
            if not following.strip():
                continue
            if not following[0].isspace():
                break
            block.append(following.strip())
        if all(item.startswith("-") for item in block):
            return [_scalar(item[1:]) for item in block]
        pairs = [item.split(":", 1) for item in block if ":" in item]
        return {_scalar(key): _scalar(name) for key, name in pairs}
    return None


def _yaml_names(text: str, file: str, problems: list[ImportProblem]) -> object:
    try:
        import yaml
    except ImportError:
        return names_from_yaml_subset(text)
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        message = f"not valid YAML: {getattr(exc, 'problem', None) or exc}; the file is left out"
        line = mark.line + 1 if mark is not None else None
        problems.append(import_problem(file, "malformed_file", message, "skipped", line=line))
        return None
    return document.get("names") if isinstance(document, dict) else None


def _names_list(names: object) -> list[str | int | float] | None:
    """Class names by index from a YAML ``names`` value: a list, or a mapping index -> name."""
    if isinstance(names, list):
        return [name if isinstance(name, str | int | float) else "" for name in names]
    if isinstance(names, dict):
        by_index: dict[int, object] = {}
        for key, name in names.items():
            try:
                by_index[int(key)] = name
            except (TypeError, ValueError):
                return None
        if not by_index or min(by_index) < 0:
            return None
        return [
            name if isinstance(name := by_index.get(index, ""), str | int | float) else ""
            for index in range(max(by_index) + 1)
        ]
    return None


def _by_depth(files: list[str]) -> list[str]:
    return sorted(files, key=lambda file: (file.count("/"), file))


def _class_names(tree: DirectoryTree, layout: YoloLayout) -> None:
    yamls = _by_depth(tree.with_suffix(*YAML_SUFFIXES))
    yamls.sort(key=lambda file: PurePosixPath(file).stem.lower() != "data")  # stable: data.yaml first
    for file in yamls:
        text = tree.path(file).read_bytes().decode("utf-8-sig", errors="replace")
        names = _names_list(_yaml_names(text, file, layout.problems))
        if names is not None:
            layout.names, layout.names_file = names, file
            return
    listed = [file for file in tree.files if PurePosixPath(file).name.lower() in NAME_FILES]
    for file in _by_depth(listed):
        lines = tree.path(file).read_bytes().decode("utf-8-sig", errors="replace").splitlines()
        while lines and not lines[-1].strip():
            lines.pop()
        layout.names, layout.names_file = list(lines), file
        return


def find_layout(tree: DirectoryTree) -> YoloLayout | None:
    """The archive's YOLO label files, or None when it has none."""
    by_key: dict[str, str] = {}
    for image in tree.images:
        for key in _label_keys(image):
            by_key.setdefault(key, image)
    labels: dict[str, str] = {}
    orphans: list[str] = []
    for file in tree.with_suffix(".txt"):
        if PurePosixPath(file).name.lower() in NAME_FILES:
            continue
        paired = by_key.get(str(PurePosixPath(file).with_suffix("")))
        if paired is not None:
            # an image with a label file both under labels/ and beside it: the labels/ one counts
            if paired not in labels or LABELS_FOLDER in PurePosixPath(file).parts:
                labels[paired] = file
        elif LABELS_FOLDER in PurePosixPath(file).parts[:-1] or _looks_like_labels(tree.path(file)):
            orphans.append(file)
    layout = YoloLayout(labels=labels, orphans=orphans)
    _class_names(tree, layout)
    files = [*labels.values(), *orphans]
    if any(_looks_like_labels(tree.path(file)) for file in files) or (layout.names is not None and labels):
        return layout
    return None


def _box(values: list[float]) -> tuple[float, float, float, float] | None:
    """(x_center, y_center, width, height) normalized, from a line's coordinates."""
    if len(values) == 4:
        return values[0], values[1], values[2], values[3]
    if len(values) >= 6 and len(values) % 2 == 0:
        xs, ys = values[0::2], values[1::2]
        return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, max(xs) - min(xs), max(ys) - min(ys)
    return None


def _parse_file(builder: SetBuilder, image_file: str, file: str, names: list[str | None]) -> None:
    try:
        text = builder.tree.path(file).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        builder.problem(file, "malformed_file", "not UTF-8 text; the image stays unlabeled", "skipped")
        return
    image = builder.open_image(image_file, file=file)
    if image is None:
        return
    for line_number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split()
        if not tokens:
            continue
        try:
            values = [float(token) for token in tokens]
        except ValueError:
            values = []
        box = _box(values[1:]) if values and values[0].is_integer() else None
        if box is None:
            builder.refuse_box(image)
            builder.problem(
                file,
                "malformed_file",
                f"line {line_number} is not 'class x_center y_center width height' (a class index and "
                f"normalized numbers): {line.strip()[:60]!r}",
                "skipped",
                line=line_number,
            )
            continue
        index = int(values[0])
        if not 0 <= index < len(names):
            builder.refuse_box(image)
            builder.problem(
                file,
                "unknown_category",
                f"line {line_number}: class {index} is not among the {len(names)} classes",
                "skipped",
                line=line_number,
            )
            continue
        label = names[index]
        if label is None:
            builder.refuse_box(image)  # the name's problem is reported
            continue
        x_center, y_center, width, height = box
        width_px, height_px = width * image["width"], height * image["height"]
        builder.add_box(
            image,
            label,
            x_center * image["width"] - width_px / 2,
            y_center * image["height"] - height_px / 2,
            width_px,
            height_px,
            file=file,
            line=line_number,
        )


def parse(builder: SetBuilder, layout: YoloLayout) -> None:
    assert layout.names is not None and layout.names_file is not None
    builder.problems.extend(layout.problems)
    names: list[str | None] = []
    for line, raw in enumerate(layout.names, start=1):
        names.append(builder.class_name(raw, file=layout.names_file, line=line, what=f"class {line - 1}"))
    for name in names:
        if name is not None:
            builder.add_class(name)
    for image_file, file in sorted(layout.labels.items(), key=lambda pair: pair[1]):
        _parse_file(builder, image_file, file, names)
    for file in layout.orphans:
        builder.problem(
            file,
            "image_missing",
            "a label file without its image (same name, any image extension)",
            "skipped",
        )


def write(interchange: InterchangeSet, out_dir: Path, image_source: ImageSource) -> None:
    classes = class_list(interchange)
    indexes = {name: index for index, name in enumerate(classes)}
    copier = ImageCopier(image_source, out_dir / IMAGES_FOLDER, unique_stems=True)
    for image in interchange["images"]:
        copied = copier.copy(image["file"])
        if image["status"] == "unlabeled":
            continue
        width, height = image_size(image, out_dir / IMAGES_FOLDER / copied)
        lines = []
        for record in image["annotations"]:
            geometry = record["geometry"]
            values = (
                (geometry["x"] + geometry["width"] / 2) / width,
                (geometry["y"] + geometry["height"] / 2) / height,
                geometry["width"] / width,
                geometry["height"] / height,
            )
            lines.append(
                " ".join([str(indexes[record["label"]]), *(f"{value:.{DECIMALS}f}" for value in values)])
            )
        destination = out_dir / LABELS_FOLDER / copied.with_suffix(".txt")
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    flat = [" ".join(name.split()) for name in classes]
    (out_dir / "classes.txt").write_text("".join(name + "\n" for name in flat), encoding="utf-8")
    quoted = "".join(f"  - {json.dumps(name, ensure_ascii=False)}\n" for name in classes)
    (out_dir / "data.yaml").write_text(
        f"path: .\ntrain: {IMAGES_FOLDER}\nval: {IMAGES_FOLDER}\nnc: {len(classes)}\nnames:\n{quoted}",
        encoding="utf-8",
    )
