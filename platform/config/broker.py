"""The embedded broker (no CELERY_BROKER_URL): kombu's filesystem transport, with one fix.

kombu writes a message straight into the queue folder (open, lock, write) while a consumer lists
that folder and moves each file out without taking the lock, so a consumer polling at the wrong
moment could take a file that was still empty and fail on an empty payload (the housekeeping
process then stopped, and `make up` with it). Here a message is written whole under a name the
consumers skip and then renamed into place, which is atomic on one filesystem: a consumer sees the
complete file or nothing.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):  # type: ignore[override]  # kombu names it payload here, message in its base
        """Put `payload` onto `queue`: written under a hidden name, then renamed into the queue."""
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # kombu's consumers take only "<stamp>.<queue>.msg" names: a leading dot and a suffix hide it
        partial = os.path.join(self.data_folder_out, f".{name}.partial")
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
