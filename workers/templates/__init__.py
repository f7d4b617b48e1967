"""Task templates: the declarations a training job is made from (DESIGN §3).

Importing this package (and ``workers.templates.registry``) never imports torch or onnx, so the web
process can list templates, show presets and validate parameters; the trainer, evaluation and
export are import strings resolved only when called.
"""

from __future__ import annotations

from workers.templates.declaration import (
    DataRequirements,
    Param,
    Preset,
    SearchDimension,
    TaskTemplate,
    TemplateParamError,
)

__all__ = ["DataRequirements", "Param", "Preset", "SearchDimension", "TaskTemplate", "TemplateParamError"]
