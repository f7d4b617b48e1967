"""Knowledge distillation: a student learns the teacher's softened class probabilities along with
the labels (Hinton et al., "Distilling the Knowledge in a Neural Network", 2015)."""

from __future__ import annotations

from typing import Any

DEFAULT_TEMPERATURE = 4.0
DEFAULT_ALPHA = 0.7


def distillation_loss(
    student_logits: Any, teacher_logits: Any, labels: Any, *, temperature: float, alpha: float
) -> Any:
    """``alpha * T^2 * KL(teacher_T || student_T) + (1 - alpha) * cross_entropy(student, labels)``;
    the T^2 factor keeps the soft term's gradients on the scale of the hard one's."""
    import torch.nn.functional as F

    hard = F.cross_entropy(student_logits, labels)
    if alpha == 0.0:
        return hard
    soft = F.kl_div(
        F.log_softmax(student_logits / temperature, dim=1),
        F.log_softmax(teacher_logits / temperature, dim=1),
        reduction="batchmean",
        log_target=True,
    )
    return alpha * temperature * temperature * soft + (1.0 - alpha) * hard


def parse_student(student: str) -> tuple[str, float]:
    """``"cnn_small"`` -> ("cnn_small", 1.0); ``"resnet_narrow@0.5"`` -> ("resnet_narrow", 0.5).

    >>> parse_student("resnet_narrow@0.5")
    ('resnet_narrow', 0.5)
    """
    arch, _, width = student.partition("@")
    if not width:
        return arch, 1.0
    try:
        multiplier = float(width)
    except ValueError:
        raise ValueError(f"student {student!r}: the width after '@' must be a number") from None
    if not 0.0 < multiplier <= 4.0:
        raise ValueError(f"student {student!r}: the width must be in (0, 4]")
    return arch, multiplier
