"""The WSGI application gunicorn serves: Django, with hosted predictions answered in front of it.

``django_application`` is Django's own handler; ``application`` first gives
POST /api/v1/deployments/<id>/predict/ to deploy.api.fastpath (the same answers as the view, without
the middleware chain and request objects) and everything else to Django.

Loading it starts this process's model preloader (deploy.warm; config/gunicorn.py starts it again
in each worker when the app was preloaded before the fork).
"""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django_application = get_wsgi_application()

from automl import engine  # noqa: E402
from deploy import warm  # noqa: E402
from deploy.api.fastpath import PredictFastPath  # noqa: E402 - needs the apps loaded

engine.forbid_torch()  # the web process never imports torch; Optuna's GP fits with it
application = PredictFastPath(django_application)
warm.start()
