"""The files of an unpacked archive as the parsers see them: relative POSIX paths, the images among
them, an image's real size, and how an annotation file's reference finds its image.

Only regular files count: symbolic links are never followed (an archive that held one was refused
before unpacking; a local folder may still have one) and hidden files, ``__MACOSX`` resource forks
and the like are passed over.
"""

from __future__ import annotations

import os
import posixpath
import warnings
from pathlib import Path, PurePosixPath

from PIL import Image

# What the platform's image intake accepts (datasets.images.ACCEPTED_FORMATS), by extension here;
# the intake verifies the content.
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".gif", ".tif", ".tiff"})
PILLOW_FORMATS = ("JPEG", "PNG", "BMP", "WEBP", "GIF", "TIFF")
# EXIF orientations that swap width and height; the intake applies them to JPEG and WebP images
# (ImageOps.exif_transpose), so boxes are read in the upright image's pixels.
EXIF_ORIENTATION = 0x0112
TRANSPOSING_ORIENTATIONS = frozenset({5, 6, 7, 8})
JUNK_FOLDERS = frozenset({"__MACOSX"})
JUNK_NAMES = frozenset({"thumbs.db", "desktop.ini"})


class ImageUnreadable(Exception):
    """An image file whose header does not give a size: ``code`` names why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _ignored(parts: tuple[str, ...]) -> bool:
    return (
        any(part.startswith(".") or part in JUNK_FOLDERS for part in parts) or parts[-1].lower() in JUNK_NAMES
    )


def is_image_name(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in IMAGE_SUFFIXES


def clean_reference(reference: str) -> str:
    """A path as an annotation file writes it, as a relative POSIX path inside the archive ("" when
    it leaves it): backslashes become slashes, ``./`` and a leading ``/`` go."""
    normal = posixpath.normpath(reference.replace("\\", "/").lstrip("/"))
    return "" if normal in (".", "") or normal == ".." or normal.startswith("../") else normal


def read_image_size(path: Path) -> tuple[int, int]:
    """An image file's (width, height) from its header, upright (see EXIF_ORIENTATION); raises
    ImageUnreadable. Nothing is decoded."""
    try:
        with warnings.catch_warnings():
            # The size is all that is read here; the intake applies the pixel limit.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path, formats=PILLOW_FORMATS) as image:
                width, height = image.size
                upright = image.format not in ("JPEG", "WEBP")  # the intake transposes only these
                if not upright and image.getexif().get(EXIF_ORIENTATION) in TRANSPOSING_ORIENTATIONS:
                    width, height = height, width
    except Image.UnidentifiedImageError:
        raise ImageUnreadable(
            "not_an_image", "not a JPEG, PNG, BMP, WebP, GIF or TIFF image (checked by content)"
        ) from None
    except Image.DecompressionBombError:
        raise ImageUnreadable("too_many_pixels", "the image has too many pixels to import") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ImageUnreadable("corrupt_image", f"unreadable image header ({exc})") from None
    if width < 1 or height < 1:
        raise ImageUnreadable("corrupt_image", f"image has no pixels ({width}x{height})")
    return width, height


class DirectoryTree:
    """The regular files under ``root``, sorted, and an index of its images by file name."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        files: list[str] = []
        for folder, subfolders, names in os.walk(self.root, followlinks=False):
            base = Path(folder)
            subfolders[:] = [name for name in subfolders if not (base / name).is_symlink()]
            for name in names:
                path = base / name
                if path.is_symlink() or not path.is_file():
                    continue
                relative = path.relative_to(self.root).as_posix()
                if not _ignored(PurePosixPath(relative).parts):
                    files.append(relative)
        self.files: list[str] = sorted(files)
        self.images: list[str] = [name for name in self.files if is_image_name(name)]
        self._image_set = frozenset(self.images)
        self._by_name: dict[str, list[str]] = {}
        for image in self.images:
            self._by_name.setdefault(PurePosixPath(image).name.lower(), []).append(image)
        self._sizes: dict[str, tuple[int, int] | ImageUnreadable] = {}

    def path(self, relative: str) -> Path:
        return self.root / relative

    def with_suffix(self, *suffixes: str) -> list[str]:
        return [name for name in self.files if PurePosixPath(name).suffix.lower() in suffixes]

    def is_image(self, relative: str) -> bool:
        return relative in self._image_set

    def find_image(self, reference: str, *, folders: list[str]) -> tuple[str | None, str]:
        """The image an annotation file means by ``reference``, looked for under each of ``folders``
        (relative; "" is the root) in turn, then by its file name anywhere in the archive when only
        one image has that name. Returns (path, "") or (None, why not)."""
        cleaned = clean_reference(reference)
        if cleaned:
            for folder in folders:
                candidate = posixpath.normpath(posixpath.join(folder, cleaned))
                if candidate in self._image_set:
                    return candidate, ""
        name = PurePosixPath(reference.replace("\\", "/")).name
        if not name:
            return None, "names no file"
        found = self._by_name.get(name.lower(), [])
        if len(found) > 1:
            near = [
                image
                for image in found
                if any(image.startswith(folder + "/") for folder in folders if folder)
            ]
            if len(near) == 1:
                return near[0], ""
            return None, f"{len(found)} images in the archive are named {name}; cannot tell which is meant"
        if found:
            return found[0], ""
        return None, "no such image in the archive"

    def image_size(self, relative: str) -> tuple[int, int]:
        """The image's (width, height) from its header, upright (see EXIF_ORIENTATION); raises
        ImageUnreadable. Nothing is decoded."""
        if relative not in self._sizes:
            try:
                self._sizes[relative] = read_image_size(self.path(relative))
            except ImageUnreadable as exc:
                self._sizes[relative] = exc
        known = self._sizes[relative]
        if isinstance(known, ImageUnreadable):
            raise known
        return known
