"""What the COCO, VOC and YOLO writers share: copying each image into the layout under a safe,
unique name, and the class list and sizes they write."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from workers.annotation_formats.tree import read_image_size
from workers.contracts.annotations import InterchangeImage, InterchangeSet

ImageSource = Callable[[str], Path]


def safe_relative(file: str) -> PurePosixPath:
    """``file`` as a relative path that stays inside the folder it is written to."""
    parts = [part for part in file.replace("\\", "/").split("/") if part not in ("", ".", "..")]
    return PurePosixPath(*parts) if parts else PurePosixPath("image")


class ImageCopier:
    """Copies the set's images under ``folder``, each keeping its path inside the set. With
    ``unique_stems`` (VOC and YOLO pair an image with an annotation file by name without
    extension) ``a.png`` and ``a.jpg`` of one folder become ``a.png`` and ``a-2.jpg``; names are
    compared case-insensitively, so the layout unpacks on any file system."""

    def __init__(self, image_source: ImageSource, folder: Path, *, unique_stems: bool) -> None:
        self.image_source = image_source
        self.folder = folder
        self.unique_stems = unique_stems
        self._taken: set[str] = set()

    def _key(self, relative: PurePosixPath) -> str:
        return (relative.with_suffix("") if self.unique_stems else relative).as_posix().lower()

    def copy(self, file: str) -> PurePosixPath:
        """Copy the image the set calls ``file``; returns its path relative to ``folder``."""
        relative = safe_relative(file)
        candidate, number = relative, 2
        while self._key(candidate) in self._taken:
            candidate = relative.with_name(f"{relative.stem}-{number}{relative.suffix}")
            number += 1
        self._taken.add(self._key(candidate))
        destination = self.folder / candidate
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.image_source(file), destination)
        return candidate


def image_size(image: InterchangeImage, copied: Path) -> tuple[int, int]:
    """The image's size as the set states it, read from the copied file where it does not."""
    if image["width"] > 0 and image["height"] > 0:
        return image["width"], image["height"]
    return read_image_size(copied)


def class_list(interchange: InterchangeSet) -> list[str]:
    """The set's classes, then any label its annotations use that the list lacks (in order of use)."""
    classes = list(interchange["classes"])
    known = set(classes)
    for image in interchange["images"]:
        for annotation in image["annotations"]:
            if annotation["label"] not in known:
                known.add(annotation["label"])
                classes.append(annotation["label"])
    return classes
