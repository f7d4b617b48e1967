"""The optional libraries (extras), imported only by the methods that need them, with an error that
names the extra to install. They are untyped here (``Any``): pandas and tqdm ship no type
information, and the SDK's own types stop at the JSON it reads."""

from __future__ import annotations

import importlib
from typing import Any

EXTRAS = {"pandas": "pandas", "matplotlib.pyplot": "plot", "numpy": "images", "PIL.Image": "images"}


def load(module: str, feature: str = "this method") -> Any:
    """``importlib.import_module(module)``, or an ImportError naming the ``sampan[...]`` extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        extra = EXTRAS.get(module, "all")
        raise ImportError(f"{feature} needs {module.split('.')[0]}: pip install 'sampan[{extra}]'") from exc


def pandas() -> Any:
    return load("pandas", "A DataFrame")


def pyplot(feature: str) -> Any:
    return load("matplotlib.pyplot", feature)
