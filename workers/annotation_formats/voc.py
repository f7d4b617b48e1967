"""Pascal VOC XML: one ``<annotation>`` file per image with ``<filename>``, ``<size>`` and an
``<object>`` per box (``<name>``, ``<bndbox>`` xmin/ymin/xmax/ymax, ``<pose>``, ``<truncated>``,
``<difficult>``, ``<occluded>``; CVAT's ``<attributes>``).

Reading: coordinates are taken as continuous pixel coordinates (x = xmin, width = xmax - xmin),
as LabelImg and CVAT write them. The image is looked for next to the XML file, in the
``JPEGImages`` folder matching an ``Annotations`` folder, at the root, then by file name anywhere.
The XML is read defensively: a DOCTYPE (the door to entity expansion and external entities) makes
the file malformed; nothing is fetched or expanded.

A class list beside the XML files (``labels.txt``, CVAT's ``labelmap.txt``, ``classes.txt``) gives
the classes' order, else they come in order of first use.

Writing: ``Annotations/<name>.xml``, ``JPEGImages/<name>.<ext>`` and ``labels.txt`` (the classes
in order); coordinates rounded to whole pixels (within half a pixel). Unlabeled images get no XML
file.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from workers.annotation_formats.builder import AttributeValue, SetBuilder
from workers.annotation_formats.writing import ImageCopier, ImageSource, class_list, image_size
from workers.contracts.annotations import InterchangeSet

ANNOTATIONS_FOLDER = "Annotations"
IMAGES_FOLDER = "JPEGImages"
FLAG_ELEMENTS = ("pose", "truncated", "difficult", "occluded")
FLAG_DEFAULTS = frozenset({"Unspecified", "0"})  # what writers put when they know nothing: not kept
# Class lists some tools write beside VOC files (CVAT: labelmap.txt lines "name:color:parts:actions").
CLASS_FILES = ("labels.txt", "labelmap.txt", "classes.txt")
SNIFF_BYTES = 4096
VOC_ROOT = re.compile(rb"<annotation[\s>]")


@dataclass
class Element:
    """An XML element with the line it starts on (xml.etree keeps no lines)."""

    tag: str
    line: int
    text: str = ""
    children: list[Element] = field(default_factory=list)

    def find(self, tag: str) -> Element | None:
        return next((child for child in self.children if child.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        return [child for child in self.children if child.tag == tag]

    def findtext(self, tag: str) -> str:
        child = self.find(tag)
        return child.text.strip() if child is not None else ""


class UnsafeXml(ValueError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def read_xml(data: bytes) -> Element:
    """Parse ``data`` with expat, refusing any DOCTYPE (so no entity is declared or expanded and no
    external resource is read). Raises expat.ExpatError or UnsafeXml."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Element] = []
    roots: list[Element] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        element = Element(tag, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(element)
        stack.append(element)

    def end(tag: str) -> None:
        stack.pop()

    def text(data: str) -> None:
        if stack:
            stack[-1].text += data

    def doctype(*args: object) -> None:
        raise UnsafeXml(
            "a DOCTYPE declaration is not allowed (entities are never expanded)", parser.CurrentLineNumber
        )

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    parser.Parse(data, True)
    return roots[0]


def looks_like_voc(path: Path) -> bool:
    """Whether the file's first bytes open an ``<annotation>`` element (not CVAT's ``<annotations>``)."""
    with path.open("rb") as handle:
        return VOC_ROOT.search(handle.read(SNIFF_BYTES)) is not None


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _attributes(element: Element) -> dict[str, AttributeValue]:
    attributes: dict[str, AttributeValue] = {}
    for tag in FLAG_ELEMENTS:
        value = element.findtext(tag)
        if value and value not in FLAG_DEFAULTS:
            attributes[tag] = int(value) if value.isdigit() else value
    holder = element.find("attributes")
    for attribute in holder.findall("attribute") if holder is not None else []:
        name = attribute.findtext("name")
        if name and name not in attributes:
            attributes[name] = attribute.findtext("value")
    return attributes


def _image_folders(file: str) -> list[str]:
    folder = posixpath.dirname(file)
    parts = folder.split("/") if folder else []
    folders = [folder]
    if ANNOTATIONS_FOLDER in parts:
        at = len(parts) - 1 - parts[::-1].index(ANNOTATIONS_FOLDER)
        folders.append("/".join([*parts[:at], IMAGES_FOLDER, *parts[at + 1 :]]))
    folders.extend(["", IMAGES_FOLDER, "images"])
    return folders


def _parse_file(builder: SetBuilder, file: str) -> None:
    try:
        root = read_xml(builder.tree.path(file).read_bytes())
    except UnsafeXml as exc:
        builder.problem(file, "malformed_file", f"{exc}; the file is left out", "skipped", line=exc.line)
        return
    except expat.ExpatError as exc:
        builder.problem(
            file,
            "malformed_file",
            f"not well-formed XML: {expat.ErrorString(exc.code)} "
            f"(line {exc.lineno}, column {exc.offset + 1}); the file is left out",
            "skipped",
            line=exc.lineno,
        )
        return
    if root.tag != "annotation":
        return  # another kind of XML file that mentions <annotation>
    filename, path = root.findtext("filename"), root.findtext("path")
    folders = _image_folders(file)
    found, why = builder.tree.find_image(filename, folders=folders) if filename else (None, "no <filename>")
    if found is None and path:
        found, _ = builder.tree.find_image(path, folders=folders)
    if found is None:
        builder.problem(
            file,
            "image_missing",
            f"image {filename or path!r}: {why}; its boxes are left out",
            "skipped",
            line=root.line,
        )
        return
    size = root.find("size")
    declared = (0.0, 0.0)
    if size is not None:
        width, height = _number(size.findtext("width")), _number(size.findtext("height"))
        declared = (width or 0.0, height or 0.0)
    image = builder.open_image(
        found, file=file, declared=declared, line=size.line if size is not None else root.line
    )
    if image is None:
        return
    for position, element in enumerate(root.findall("object")):
        label = builder.class_name(element.findtext("name"), file=file, line=element.line, what="object")
        bndbox = element.find("bndbox")
        tags = ("xmin", "ymin", "xmax", "ymax")
        read = [] if bndbox is None else [_number(bndbox.findtext(tag)) for tag in tags]
        corners = [value for value in read if value is not None]
        if label is None or len(corners) != 4:
            builder.refuse_box(image)
            if label is not None:
                builder.problem(
                    file,
                    "malformed_file",
                    f"object {position} ({label}) needs a <bndbox> with numeric xmin, ymin, xmax and ymax",
                    "skipped",
                    line=(bndbox if bndbox is not None else element).line,
                    annotation=position,
                )
            continue
        xmin, ymin, xmax, ymax = corners
        builder.add_box(
            image,
            label,
            xmin,
            ymin,
            xmax - xmin,
            ymax - ymin,
            file=file,
            line=element.line,
            annotation=position,
            attributes=_attributes(element),
        )


def _class_order(builder: SetBuilder) -> None:
    """Classes from a class list file beside the XML files (the root-most one), in its order."""
    listed = [file for file in builder.tree.files if posixpath.basename(file).lower() in CLASS_FILES]
    for file in sorted(
        listed, key=lambda file: (file.count("/"), CLASS_FILES.index(posixpath.basename(file).lower()))
    ):
        lines = builder.tree.path(file).read_bytes().decode("utf-8-sig", errors="replace").splitlines()
        names = [line.split(":")[0] if file.lower().endswith("labelmap.txt") else line for line in lines]
        for line_number, raw in enumerate(names, start=1):
            if raw.strip() and not raw.startswith("#"):
                name = builder.class_name(raw, file=file, line=line_number)
                if name is not None:
                    builder.add_class(name)
        return


def parse(builder: SetBuilder, files: list[str]) -> None:
    _class_order(builder)
    for file in files:
        _parse_file(builder, file)


def _text(parent: ElementTree.Element, tag: str, value: object) -> ElementTree.Element:
    element = ElementTree.SubElement(parent, tag)
    element.text = str(value)
    return element


def _flag(value: AttributeValue) -> int | str:
    if isinstance(value, bool | int | float):
        return int(value)
    return int(value) if value.isdigit() else value


def _pixel_range(start: float, length: float, limit: int) -> tuple[int, int]:
    low, high = round(start), round(start + length)
    if high <= low:
        low = min(low, limit - 1)
        high = low + 1
    return low, high


def write(interchange: InterchangeSet, out_dir: Path, image_source: ImageSource) -> None:
    classes = [" ".join(name.split()) for name in class_list(interchange)]
    (out_dir / CLASS_FILES[0]).write_text("".join(name + "\n" for name in classes), encoding="utf-8")
    copier = ImageCopier(image_source, out_dir / IMAGES_FOLDER, unique_stems=True)
    for image in interchange["images"]:
        copied = copier.copy(image["file"])
        if image["status"] == "unlabeled":
            continue
        width, height = image_size(image, out_dir / IMAGES_FOLDER / copied)
        root = ElementTree.Element("annotation")
        _text(root, "folder", IMAGES_FOLDER)
        _text(root, "filename", copied.name)
        size = ElementTree.SubElement(root, "size")
        _text(size, "width", width)
        _text(size, "height", height)
        _text(size, "depth", 3)
        _text(root, "segmented", 0)
        for record in image["annotations"]:
            geometry, attributes = record["geometry"], dict(record.get("attributes") or {})
            element = ElementTree.SubElement(root, "object")
            _text(element, "name", record["label"])
            _text(element, "pose", attributes.pop("pose", "Unspecified"))
            for flag in ("truncated", "difficult", "occluded"):
                if flag in attributes or flag != "occluded":
                    _text(element, flag, _flag(attributes.pop(flag, 0)))
            bndbox = ElementTree.SubElement(element, "bndbox")
            xmin, xmax = _pixel_range(geometry["x"], geometry["width"], width)
            ymin, ymax = _pixel_range(geometry["y"], geometry["height"], height)
            for tag, corner in (("xmin", xmin), ("ymin", ymin), ("xmax", xmax), ("ymax", ymax)):
                _text(bndbox, tag, corner)
            if attributes:
                holder = ElementTree.SubElement(element, "attributes")
                for name, value in attributes.items():
                    attribute = ElementTree.SubElement(holder, "attribute")
                    _text(attribute, "name", name)
                    _text(attribute, "value", value)
        ElementTree.indent(root)
        destination = out_dir / ANNOTATIONS_FOLDER / copied.with_suffix(".xml")
        destination.parent.mkdir(parents=True, exist_ok=True)
        ElementTree.ElementTree(root).write(destination, encoding="utf-8", xml_declaration=True)
