"""A user's JupyterLab server on a worker host (Django-free): start it in the sandbox, wait until it
answers, watch its activity, stop it; pack and unpack the user's files (``workers.notebooks.server``)."""
