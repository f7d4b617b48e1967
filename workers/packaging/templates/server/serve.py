"""Start this package's prediction server.

    SAMPAN_SERVER_API_KEY=change-me python serve.py --host 0.0.0.0 --port 8080

See README.md for every setting; the server is workers/serving/standalone.py.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workers.serving.standalone import main  # noqa: E402 (after the path is set)

if __name__ == "__main__":
    sys.exit(main())
